import { z } from 'zod';
import { queryBool, queryInt } from '../inputCodec.ts';
import { LEDGER } from './ledgerAccount.ts';

export const TRANSFERS_LIST_MAX = 1000;
export const ASSET_REF_MAX = 16;

/** Spec 4.7 names these query parameters in snake_case. */
export const listTransfersQuery = z.strictObject({
  limit: queryInt(1, TRANSFERS_LIST_MAX).optional(),
  page_token: z.string().max(2048).optional(),
  reversed: queryBool().optional(),
  subaccount_id: z.string().max(64).optional(),
  ledger: LEDGER.optional(),
  asset: z.string().max(ASSET_REF_MAX).optional(),
});
export type ListTransfersQuery = z.output<typeof listTransfersQuery>;
