import { getTradingRateLimitsQuery } from '../../../services/getTradingRateLimits.schema.ts';
import { builder } from '../builder.ts';
import { callerOf } from '../connections.ts';
import { parseArgs } from '../validate.ts';

const Rule = builder
  .objectRef<{ vipTier: number; policyClass: 'PLACE' | 'CANCEL'; periodMs: number; quotaWeight: number; burstWeight: number }>('RateLimitRule')
  .implement({
    description: 'Spec 2.16: one VIP tier’s placement or cancellation quota',
    fields: (t) => ({
      vipTier: t.exposeInt('vipTier'),
      policyClass: t.exposeString('policyClass'),
      periodMs: t.field({ type: 'Int64', resolve: (r) => r.periodMs }),
      quotaWeight: t.field({ type: 'Int64', resolve: (r) => r.quotaWeight }),
      burstWeight: t.field({ type: 'Int64', resolve: (r) => r.burstWeight }),
    }),
  });

const Catalog = builder
  .objectRef<{ effectiveFrom: Date; policyVersion: string; rules: { vipTier: number; policyClass: 'PLACE' | 'CANCEL'; periodMs: number; quotaWeight: number; burstWeight: number }[] }>('RateLimitCatalog')
  .implement({
    fields: (t) => ({
      effectiveFrom: t.expose('effectiveFrom', { type: 'DateTime' }),
      policyVersion: t.exposeString('policyVersion'),
      rules: t.field({ type: [Rule], resolve: (c) => c.rules }),
    }),
  });

type EffectiveRule = { scope: string; policyClass: 'PLACE' | 'CANCEL'; source: string; periodMs: number; quotaWeight: number; burstWeight: number };

const Effective = builder
  .objectRef<{ policyVersion: string; effectiveFrom: Date; vipTier: number; accountId: string; rules: EffectiveRule[] }>('TradingRateLimits')
  .implement({
    description: 'The trading policies that apply to one account and credential (not live capacity)',
    fields: (t) => ({
      policyVersion: t.exposeString('policyVersion'),
      effectiveFrom: t.expose('effectiveFrom', { type: 'DateTime' }),
      vipTier: t.exposeInt('vipTier'),
      accountId: t.exposeString('accountId'),
      rules: t.field({
        type: [
          builder.objectRef<EffectiveRule>('EffectiveRateLimitRule').implement({
            fields: (r) => ({
              scope: r.exposeString('scope'),
              policyClass: r.exposeString('policyClass'),
              source: r.exposeString('source'),
              periodMs: r.field({ type: 'Int64', resolve: (x) => x.periodMs }),
              quotaWeight: r.field({ type: 'Int64', resolve: (x) => x.quotaWeight }),
              burstWeight: r.field({ type: 'Int64', resolve: (x) => x.burstWeight }),
            }),
          }),
        ],
        resolve: (e) => e.rules,
      }),
    }),
  });

builder.queryFields((t) => ({
  rateLimits: t.field({ type: Catalog, resolve: (_root, _args, ctx) => ctx.services.limiter.getRateLimitConfig() }),
  tradingRateLimits: t.field({
    type: Effective,
    args: { subaccountId: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.limiter.getTradingRateLimits(callerOf(ctx), parseArgs(getTradingRateLimitsQuery, args)),
  }),
}));
