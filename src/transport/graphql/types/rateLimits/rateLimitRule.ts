import { builder } from '../../builder.ts';
import type { RuleShape } from './shapes.ts';

export const Rule = builder.objectRef<RuleShape>('RateLimitRule').implement({
  description: 'Spec 2.16: one VIP tier’s placement or cancellation quota',
  fields: (t) => ({
    vipTier: t.exposeInt('vipTier'),
    policyClass: t.exposeString('policyClass'),
    periodMs: t.field({ type: 'Int64', resolve: (r) => r.periodMs }),
    quotaWeight: t.field({ type: 'Int64', resolve: (r) => r.quotaWeight }),
    burstWeight: t.field({ type: 'Int64', resolve: (r) => r.burstWeight }),
  }),
});
