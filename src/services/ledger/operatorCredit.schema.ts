import { z } from 'zod';
import { AMOUNT_TEXT_MAX } from './createInternalTransfer.schema.ts';
import { LEDGER } from './ledgerAccount.ts';
import { ASSET_REF_MAX } from './listTransfers.schema.ts';

export const operatorCreditBody = z.strictObject({ accountId: z.string().max(64), asset: z.string().max(ASSET_REF_MAX), amount: z.string().max(AMOUNT_TEXT_MAX), ledgerAccount: LEDGER });
export type OperatorCreditBody = z.output<typeof operatorCreditBody>;
