import { builder } from '../../builder.ts';
import { Rule } from './rateLimitRule.ts';
import type { RuleShape } from './shapes.ts';

const Catalog = builder.objectRef<{ effectiveFrom: Date; policyVersion: string; rules: RuleShape[] }>('RateLimitCatalog').implement({
  fields: (t) => ({
    effectiveFrom: t.expose('effectiveFrom', { type: 'DateTime' }),
    policyVersion: t.exposeString('policyVersion'),
    rules: t.field({ type: [Rule], resolve: (c) => c.rules }),
  }),
});

builder.queryField('rateLimits', (t) => t.field({ type: Catalog, resolve: (_root, _args, ctx) => ctx.services.limiter.getRateLimitConfig() }));
