import { z } from 'zod';
import { POOL_NAMES, type PoolName } from '../domain/ratelimit/catalog.ts';
import { int64String, rfc3339, toRfc3339 } from './scalars.ts';

/** An operator's override of one pool's policy for one account or API key, as stored. */
export interface RateLimitOverrideView {
  pool: PoolName;
  quotaWeight: bigint;
  periodMs: bigint;
  burstWeight: bigint;
  expiresAt: Date | null;
}

/** PUT /operator/v1/rate-limit-overrides (ours: the operator API is not in the spec). */
export const rateLimitOverrideSchema = z.strictObject({
  override: z.strictObject({
    pool: z.enum(POOL_NAMES),
    quotaWeight: int64String.describe('Weighted capacity per period'),
    periodMs: int64String,
    burstWeight: int64String.describe('Largest weighted capacity in a burst'),
    expiresAt: rfc3339.optional().describe('Absent when it does not expire'),
  }),
});

export function presentRateLimitOverride(r: RateLimitOverrideView): z.infer<typeof rateLimitOverrideSchema> {
  return {
    override: {
      pool: r.pool,
      quotaWeight: r.quotaWeight.toString(),
      periodMs: r.periodMs.toString(),
      burstWeight: r.burstWeight.toString(),
      ...(r.expiresAt ? { expiresAt: toRfc3339(r.expiresAt) } : {}),
    },
  };
}

/** DELETE /operator/v1/rate-limit-overrides: nothing to say but that it is gone. */
export const rateLimitOverrideDeletedSchema = z.strictObject({});
