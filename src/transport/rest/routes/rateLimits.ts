import { presentRateLimitConfig, presentTradingRateLimits, rateLimitConfigSchema, tradingRateLimitsSchema } from '../../../presenters/rateLimit.ts';
import { getTradingRateLimitsQuery } from '../../../services/getTradingRateLimits.schema.ts';
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
      query: getTradingRateLimitsQuery,
      response: tradingRateLimitsSchema,
      handler: async ({ query }, ctx) => presentTradingRateLimits(await s.limiter.getTradingRateLimits(ctx.caller, query)),
    }),
  ];
}
