import { z } from 'zod';
import { int32, subaccountIdField } from '../../inputCodec.ts';
import { SIDE, symbolField } from './shared.schema.ts';

export const cancelAllAfterBody = z.strictObject({
  requestId: z.string().min(1).max(128),
  timeoutSec: int32(),
  symbol: symbolField.optional(),
  side: SIDE.optional(),
  subaccountId: subaccountIdField,
});
export type CancelAllAfterBody = z.output<typeof cancelAllAfterBody>;
