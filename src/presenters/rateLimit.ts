import { z } from 'zod';
import type { Scope } from '../domain/ratelimit/catalog.ts';
import { int64String, rfc3339, toRfc3339 } from './scalars.ts';

/** A catalog rule as the limiter keeps it: plain integers. */
export interface RateLimitRuleView {
  vipTier: number;
  policyClass: 'PLACE' | 'CANCEL';
  periodMs: number;
  quotaWeight: number;
  burstWeight: number;
}

const policyClass = z.enum(['PLACE', 'CANCEL']);
const weights = {
  periodMs: int64String,
  quotaWeight: int64String.describe('Weighted capacity per period'),
  burstWeight: int64String.describe('Largest weighted capacity in a burst'),
};

/** Spec 2.16. */
export const rateLimitRuleSchema = z.strictObject({ vipTier: z.number().int().min(0).max(10), policyClass, ...weights });

export const rateLimitConfigSchema = z.strictObject({ effectiveFrom: rfc3339, policyVersion: z.string(), rules: z.array(rateLimitRuleSchema) });

export function presentRateLimitConfig(c: { effectiveFrom: Date; policyVersion: string; rules: RateLimitRuleView[] }): z.infer<typeof rateLimitConfigSchema> {
  return {
    effectiveFrom: toRfc3339(c.effectiveFrom),
    policyVersion: c.policyVersion,
    rules: c.rules.map((r) => ({ vipTier: r.vipTier, policyClass: r.policyClass, ...presentWeights(r) })),
  };
}

const scope = z.enum(['CLIENT_IP', 'AUTH_SUBJECT', 'API_KEY', 'ACCOUNT', 'SUBACCOUNT'] satisfies Scope[]);

/** A rule that applies to one caller: which bucket it fills, and whether an operator override set it. */
export const tradingRateLimitRuleSchema = z.strictObject({ scope, policyClass, source: z.enum(['CATALOG', 'OVERRIDE']), ...weights });

export const tradingRateLimitsSchema = z.strictObject({
  policyVersion: z.string(),
  effectiveFrom: rfc3339,
  vipTier: z.number().int().min(0).max(10),
  accountId: z.string(),
  rules: z.array(tradingRateLimitRuleSchema),
});

export function presentTradingRateLimits(r: {
  policyVersion: string;
  effectiveFrom: Date;
  vipTier: number;
  accountId: string;
  rules: (Omit<RateLimitRuleView, 'vipTier'> & { scope: Scope; source: 'CATALOG' | 'OVERRIDE' })[];
}): z.infer<typeof tradingRateLimitsSchema> {
  return {
    policyVersion: r.policyVersion,
    effectiveFrom: toRfc3339(r.effectiveFrom),
    vipTier: r.vipTier,
    accountId: r.accountId,
    rules: r.rules.map((x) => ({ scope: x.scope, policyClass: x.policyClass, source: x.source, ...presentWeights(x) })),
  };
}

function presentWeights(r: Pick<RateLimitRuleView, 'periodMs' | 'quotaWeight' | 'burstWeight'>) {
  return { periodMs: String(r.periodMs), quotaWeight: String(r.quotaWeight), burstWeight: String(r.burstWeight) };
}
