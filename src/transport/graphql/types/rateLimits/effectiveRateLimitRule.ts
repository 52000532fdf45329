import { builder } from '../../builder.ts';
import type { EffectiveRuleShape } from './shapes.ts';

export const EffectiveRule = builder.objectRef<EffectiveRuleShape>('EffectiveRateLimitRule').implement({
  fields: (r) => ({
    scope: r.exposeString('scope'),
    policyClass: r.exposeString('policyClass'),
    source: r.exposeString('source'),
    periodMs: r.field({ type: 'Int64', resolve: (x) => x.periodMs }),
    quotaWeight: r.field({ type: 'Int64', resolve: (x) => x.quotaWeight }),
    burstWeight: r.field({ type: 'Int64', resolve: (x) => x.burstWeight }),
  }),
});
