import type { Caller } from '../../auth/caller.ts';
import type { LedgerContext } from './context.ts';
import { createInternalTransfer } from './createInternalTransfer.ts';
import { listBalances } from './listBalances.ts';
import { listTransfers } from './listTransfers.ts';
import { operatorCredit } from './operatorCredit.ts';

/**
 * Balances and ledger transfers (spec 2.11, 4.7): deposits (operator credits until the
 * chain lands), internal transfers, and the transfer history. Every movement is a set
 * of legs that sums to zero per asset, posted through the same sequencer as trades.
 */
export function createLedgerService(ctx: LedgerContext) {
  return {
    listBalances: (caller: Caller, input: Parameters<typeof listBalances>[2]) => listBalances(ctx, caller, input),
    listTransfers: (caller: Caller, input: Parameters<typeof listTransfers>[2]) => listTransfers(ctx, caller, input),
    createInternalTransfer: (caller: Caller, input: Parameters<typeof createInternalTransfer>[2]) => createInternalTransfer(ctx, caller, input),
    operatorCredit: (input: Parameters<typeof operatorCredit>[1]) => operatorCredit(ctx, input),
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
