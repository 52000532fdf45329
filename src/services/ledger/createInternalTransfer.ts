import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { parseScaled, E18, MAX_LEDGER_AMOUNT_E18 } from '../../domain/money.ts';
import type { LedgerAccount } from '../../generated/prisma/client.ts';
import { requirePermission, resolveAccount } from '../access.ts';
import { assetOf, type BalanceRef, type LedgerContext } from './context.ts';

/**
 * Moves funds between FUNDING and TRADING of one account, or between a root account
 * and its subaccounts (INTERNAL_TRANSFER pool). Never more than is available.
 */
export async function createInternalTransfer(ctx: LedgerContext, caller: Caller,
  input: { asset: string; amount: string; fromLedger: LedgerAccount; toLedger: LedgerAccount; fromSubaccountId?: string; toSubaccountId?: string },
) {
  requirePermission(caller, 'TRANSFER');
  const from = await resolveAccount(ctx.db, caller, input.fromSubaccountId, 'fromSubaccountId');
  const to = await resolveAccount(ctx.db, caller, input.toSubaccountId, 'toSubaccountId');
  await ctx.limiter.admit('transfer.internal', { caller, account: from });
  const asset = assetOf(ctx, input.asset, 'asset');
  const amount = parseScaled(input.amount, E18, 'amount', { max: MAX_LEDGER_AMOUNT_E18 });
  if (from.id === to.id && input.fromLedger === input.toLedger) {
    throw invalidArgument('toLedger', 'source and destination are the same', 'distinct');
  }
  const src: BalanceRef = { accountId: from.id, ledgerAccount: input.fromLedger, assetId: asset.unifiedAssetId };
  const dst: BalanceRef = { accountId: to.id, ledgerAccount: input.toLedger, assetId: asset.unifiedAssetId };
  return ctx.engine.transfer([src, dst], (job) => {
    if (job.balance(src).available < amount) {
      throw errors.INSUFFICIENT_BALANCE('insufficient available balance', {
        violations: [{ fieldPath: 'amount', message: 'exceeds the available balance', ruleId: 'balance' }],
      });
    }
    const t = job.post({ code: 'INTERNAL_TRANSFER' }, [{ ref: src, amount }], [{ ref: dst, amount }]);
    return { linkId: t.id, timestampUs: job.nowUs };
  });
}
