import { getTradingRateLimitsQuery } from '../../../../services/getTradingRateLimits.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { EffectiveRule } from './effectiveRateLimitRule.ts';
import type { EffectiveRuleShape } from './shapes.ts';

const Effective = builder
  .objectRef<{ policyVersion: string; effectiveFrom: Date; vipTier: number; accountId: string; rules: EffectiveRuleShape[] }>('TradingRateLimits')
  .implement({
    description: 'The trading policies that apply to one account and credential (not live capacity)',
    fields: (t) => ({
      policyVersion: t.exposeString('policyVersion'),
      effectiveFrom: t.expose('effectiveFrom', { type: 'DateTime' }),
      vipTier: t.exposeInt('vipTier'),
      accountId: t.exposeString('accountId'),
      rules: t.field({ type: [EffectiveRule], resolve: (e) => e.rules }),
    }),
  });

builder.queryField('tradingRateLimits', (t) =>
  t.field({
    type: Effective,
    args: { subaccountId: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.limiter.getTradingRateLimits(callerOf(ctx), parseArgs(getTradingRateLimitsQuery, args)),
  }),
);
