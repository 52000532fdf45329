import { builder } from '../../builder.ts';
import { BatchRateLimit } from './cancelBatchRateLimit.ts';
import type { BatchItemErrorShape } from './shapes.ts';
import { Violation } from './violation.ts';

export const BatchItemError = builder.objectRef<BatchItemErrorShape>('CancelBatchItemError').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    violations: t.field({ type: [Violation], resolve: (e) => e.violations }),
    rateLimit: t.field({ type: BatchRateLimit, nullable: true, resolve: (e) => e.rateLimit ?? null }),
  }),
});
