import { z } from 'zod';
import { int32 } from '../../inputCodec.ts';
import { decimal, triggerRef } from './shared.schema.ts';

export const modifyTriggerBody = triggerRef.extend({
  triggerPrice: decimal.optional(),
  childLimitPrice: decimal.optional(),
  qty: decimal.optional(),
  // Tick counts are integers as text, shorter than a decimal price.
  trailingDistanceTicks: z.string().max(20).optional(),
  trailingDistanceBps: int32().optional(),
});
export type ModifyTriggerBody = z.output<typeof modifyTriggerBody>;
