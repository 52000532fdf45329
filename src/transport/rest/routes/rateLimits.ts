import { z } from 'zod';
import type { Services } from '../../../services/index.ts';
import { toRfc3339 } from '../codec.ts';
import { defineRoute } from '../route.ts';

export function rateLimitRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'getRateLimitConfig',
      method: 'GET',
      url: '/v1/rate-limits',
      summary: 'The trading quota catalog for VIP0 to VIP10 (public)',
      auth: 'public',
      handler: async () => {
        const c = s.limiter.getRateLimitConfig();
        return {
          effectiveFrom: toRfc3339(c.effectiveFrom),
          policyVersion: c.policyVersion,
          rules: c.rules.map((r) => ({
            vipTier: r.vipTier,
            policyClass: r.policyClass,
            periodMs: String(r.periodMs),
            quotaWeight: String(r.quotaWeight),
            burstWeight: String(r.burstWeight),
          })),
        };
      },
    }),
    defineRoute({
      operationId: 'getTradingRateLimits',
      method: 'GET',
      url: '/v1/trading/rate-limits',
      summary: 'Effective trading limits of the root account or a subaccount (policy, not live capacity)',
      auth: 'caller',
      query: z.strictObject({ subaccountId: z.string().max(64).optional() }),
      handler: async ({ query }, ctx) => {
        const r = await s.limiter.getTradingRateLimits(ctx.caller, query);
        return {
          policyVersion: r.policyVersion,
          effectiveFrom: toRfc3339(r.effectiveFrom),
          vipTier: r.vipTier,
          accountId: r.accountId,
          rules: r.rules.map((x) => ({ ...x, periodMs: String(x.periodMs), quotaWeight: String(x.quotaWeight), burstWeight: String(x.burstWeight) })),
        };
      },
    }),
  ];
}
