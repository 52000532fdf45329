import { builder } from '../../builder.ts';
import type { BatchItemErrorShape } from './shapes.ts';

export const BatchRateLimit = builder.objectRef<NonNullable<BatchItemErrorShape['rateLimit']>>('CancelBatchRateLimit').implement({
  description: 'The quota an item was refused by, as in a RATE_LIMIT_EXCEEDED error',
  fields: (t) => ({
    limit: t.field({ type: 'Int64', resolve: (r) => r.limit }),
    operationId: t.exposeString('operationId', { nullable: true }),
    policyClass: t.exposeString('policyClass', { nullable: true }),
    policyVersion: t.exposeString('policyVersion', { nullable: true }),
    reason: t.exposeString('reason', { nullable: true }),
    refillModel: t.exposeString('refillModel', { nullable: true }),
    remaining: t.field({ type: 'Int64', resolve: (r) => r.remaining }),
    retryAfterMs: t.field({ type: 'Int64', resolve: (r) => r.retryAfterMs }),
    scope: t.exposeString('scope', { nullable: true }),
  }),
});
