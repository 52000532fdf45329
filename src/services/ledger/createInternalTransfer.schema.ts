import { z } from 'zod';
import { LEDGER } from './ledgerAccount.ts';
import { ASSET_REF_MAX } from './listTransfers.schema.ts';

export const AMOUNT_TEXT_MAX = 64;

export const createInternalTransferBody = z.strictObject({
  asset: z.string().max(ASSET_REF_MAX),
  amount: z.string().max(AMOUNT_TEXT_MAX),
  fromLedger: LEDGER,
  toLedger: LEDGER,
  fromSubaccountId: z.string().max(64).optional(),
  toSubaccountId: z.string().max(64).optional(),
});
export type CreateInternalTransferBody = z.output<typeof createInternalTransferBody>;
