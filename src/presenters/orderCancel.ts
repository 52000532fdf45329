import { z } from 'zod';
import { int64String, rfc3339, toRfc3339 } from './scalars.ts';

/** Spec 4.5 Cancel Order response. */
export const orderCanceledSchema = z.strictObject({
  orderId: z.string(),
  status: z.enum(['ACCEPTED']),
  ts: rfc3339,
  tsNs: int64String.describe('Epoch nanoseconds'),
});

export function presentOrderCanceled(r: { orderId: string; status: 'ACCEPTED'; ts: Date; tsNs: bigint }): z.infer<typeof orderCanceledSchema> {
  return { orderId: r.orderId, status: r.status, ts: toRfc3339(r.ts), tsNs: r.tsNs.toString() };
}

/** POST /v1/orders/cancel-all: how many orders it canceled (triggers not counted). */
export const ordersCanceledSchema = z.strictObject({
  canceledCount: z.number().int(),
  ts: rfc3339,
  tsNs: int64String.describe('Epoch nanoseconds'),
});

export function presentOrdersCanceled(r: { canceledCount: number; ts: Date; tsNs: bigint }): z.infer<typeof ordersCanceledSchema> {
  return { canceledCount: r.canceledCount, ts: toRfc3339(r.ts), tsNs: r.tsNs.toString() };
}
