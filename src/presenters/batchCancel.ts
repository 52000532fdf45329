import { z } from 'zod';
import type { OrdersService } from '../services/trading/index.ts';
import { int64String, rfc3339 } from './scalars.ts';

/** Spec 7.5: the quota fields of a rejected item, numbers as JSON numbers. */
const rateLimitSchema = z.strictObject({
  limit: z.number(),
  operationId: z.string(),
  policyClass: z.string(),
  policyVersion: z.string(),
  reason: z.string(),
  refillModel: z.string(),
  remaining: z.number(),
  retryAfterMs: z.number(),
  scope: z.string(),
});

const violationSchema = z.strictObject({ fieldPath: z.string(), message: z.string(), ruleId: z.string() });

/** Spec 7.5: a batch item's error object. */
const itemErrorSchema = z.strictObject({
  code: z.string().describe('The code a problem+json body would carry, e.g. ORDER_NOT_FOUND'),
  rateLimit: rateLimitSchema.optional().describe('Quota exhaustion only'),
  violations: z.array(violationSchema),
});

const itemSchema = z.strictObject({
  orderId: z.string().describe('Resolved on accept; as sent (or empty) on reject'),
  clientOrderId: z.string().optional().describe('Echoed when given'),
  status: z.enum(['ACCEPTED', 'REJECTED']),
  code: z.string().optional().describe('Rejected items only'),
  error: itemErrorSchema.optional().describe('Rejected items only'),
});

/** Spec 4.5 Batch Cancel Orders response: one result per item, in order. */
export const batchCancelSchema = z.strictObject({
  acceptedCount: z.number().int(),
  rejectedCount: z.number().int(),
  results: z.array(itemSchema),
  ts: rfc3339,
  tsNs: int64String.describe('Epoch nanoseconds'),
});

/** The batch as first answered: a repeated requestId answers the stored result, so the service's view is already JSON. */
export function presentBatchCancel(r: Awaited<ReturnType<OrdersService['batchCancelOrders']>>): z.infer<typeof batchCancelSchema> {
  return { acceptedCount: r.acceptedCount, rejectedCount: r.rejectedCount, results: r.results, ts: r.ts, tsNs: r.tsNs };
}
