import { z } from 'zod';
import { queryBool, queryInt, queryList, subaccountIdField } from '../../inputCodec.ts';
import { SIDE, symbolField } from '../commands/shared.schema.ts';

export const OPEN_ORDERS_LIMIT_MAX = 1000;

export const getOpenOrdersQuery = z.strictObject({
  includeAttachedRisk: queryBool().optional(),
  includeAttachedRiskState: queryBool().optional(),
  limit: queryInt(1, OPEN_ORDERS_LIMIT_MAX).optional(),
  pageToken: z.string().max(2048).optional(),
  side: SIDE.optional(),
  subaccountId: subaccountIdField,
  symbol: queryList(symbolField).optional(),
  triggerId: z.string().max(64).optional(),
});
export type GetOpenOrdersQuery = z.output<typeof getOpenOrdersQuery>;
