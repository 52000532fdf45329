import { z } from 'zod';
import { presentRateLimitConfig, presentTradingRateLimits, rateLimitConfigSchema, tradingRateLimitsSchema } from '../../../presenters/rateLimit.ts';
import type { Services } from '../../../services/index.ts';
import { defineRoute } from '../route.ts';

export function rateLimitRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'getRateLimitConfig',
      method: 'GET',
      url: '/v1/rate-limits',
      summary: 'The trading quota catalog for VIP0 to VIP10 (public)',
      auth: 'public',
      response: rateLimitConfigSchema,
      handler: async () => presentRateLimitConfig(s.limiter.getRateLimitConfig()),
    }),
    defineRoute({
      operationId: 'getTradingRateLimits',
      method: 'GET',
      url: '/v1/trading/rate-limits',
      summary: 'Effective trading limits of the root account or a subaccount (policy, not live capacity)',
      auth: 'caller',
      query: z.strictObject({ subaccountId: z.string().max(64).optional() }),
      response: tradingRateLimitsSchema,
      handler: async ({ query }, ctx) => presentTradingRateLimits(await s.limiter.getTradingRateLimits(ctx.caller, query)),
    }),
  ];
}
