import { z } from 'zod';
import { nonNegativeInt64, queryBool, queryInt, subaccountIdField } from '../../inputCodec.ts';
import { SIDE, orderIdField, symbolField } from '../commands/shared.schema.ts';

export const USER_TRADES_LIMIT_MAX = 1000;
export const LINEAGE_GENERATION_MAX = 1_000_000;

export const getUserTradesQuery = z.strictObject({
  orderId: orderIdField.optional(),
  lineageId: z.string().max(64).optional(),
  throughGeneration: queryInt(1, LINEAGE_GENERATION_MAX).optional(),
  afterMatchId: nonNegativeInt64().optional(),
  symbol: symbolField.optional(),
  side: SIDE.optional(),
  startTime: nonNegativeInt64().optional(),
  endTime: nonNegativeInt64().optional(),
  includeTransfers: queryBool().optional(),
  subaccountId: subaccountIdField,
  limit: queryInt(1, USER_TRADES_LIMIT_MAX).optional(),
  pageToken: z.string().max(2048).optional(),
});
export type GetUserTradesQuery = z.output<typeof getUserTradesQuery>;
