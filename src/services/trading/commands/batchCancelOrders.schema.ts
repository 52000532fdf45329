import { z } from 'zod';
import { subaccountIdField } from '../../inputCodec.ts';
import { clientOrderIdField, orderIdField } from './shared.schema.ts';

/** Spec 4.5: a batch cancels at most 50 orders. */
export const BATCH_CANCEL_MAX = 50;

export const batchCancelOrdersBody = z.strictObject({
  requestId: z.string().min(1).max(128),
  subaccountId: subaccountIdField,
  items: z.array(z.strictObject({ orderId: orderIdField.optional(), clientOrderId: clientOrderIdField.optional() })).min(1).max(BATCH_CANCEL_MAX),
});
export type BatchCancelOrdersBody = z.output<typeof batchCancelOrdersBody>;
