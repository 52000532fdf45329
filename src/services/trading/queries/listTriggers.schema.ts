import { z } from 'zod';
import { INT32_MAX, queryInt, queryList, subaccountIdField } from '../../inputCodec.ts';
import { symbolField } from '../commands/shared.schema.ts';

export const TRIGGERS_LIST_MAX = 500;
export const TRIGGER_TYPE = z.enum(['STOP_LOSS', 'TAKE_PROFIT', 'TRAILING_STOP', 'TWAP', 'LADDER']);

export const listTriggersQuery = z.strictObject({
  limit: queryInt(1, TRIGGERS_LIST_MAX).optional(),
  pageToken: z.string().max(2048).optional(),
  parentOrderId: z.string().max(64).optional(),
  status: queryList(z.string().max(32)).optional(),
  subaccountId: subaccountIdField,
  symbol: symbolField.optional(),
  symbolId: queryInt(0, INT32_MAX).optional(),
  triggerType: TRIGGER_TYPE.optional(),
});
export type ListTriggersQuery = z.output<typeof listTriggersQuery>;
