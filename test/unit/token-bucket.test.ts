import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_COST, OVERRIDE_LIMITS, POOLS, tradingCatalog, type BucketPolicy } from '../../src/domain/ratelimit/catalog.ts';
import { chargeAll, scale, type BucketState } from '../../src/domain/ratelimit/tokenBucket.ts';

/** One bucket driven by an injected clock (microseconds). */
function bucket(policy: BucketPolicy) {
  let state: BucketState | undefined;
  return {
    charge(nowUs: number, cost: number) {
      const outcome = chargeAll([scale(policy, cost)], [state], nowUs);
      if (outcome.admitted) state = { level: outcome.levels[0] as number, atUs: nowUs };
      return outcome;
    },
  };
}

const SECOND = 1_000_000;

describe('continuous token buckets', () => {
  it('ACCOUNT_ADMIN: 15 immediate 2-unit mutations, then one per second, full again in 15 s', () => {
    const b = bucket(POOLS.ACCOUNT_ADMIN);
    const t0 = 1_000 * SECOND;
    for (let i = 0; i < 15; i++) expect(b.charge(t0, 2).admitted).toBe(true);
    const rejected = b.charge(t0, 2);
    expect(rejected).toEqual({ admitted: false, rejectedIndex: 0, remaining: 0, retryAfterUs: SECOND });
    expect(b.charge(t0 + SECOND - 1, 2).admitted).toBe(false);
    expect(b.charge(t0 + SECOND, 2).admitted).toBe(true);
    expect(b.charge(t0 + 2 * SECOND, 2).admitted).toBe(true);
    // Idle for 15 s: full again, and never more than full.
    const later = t0 + 2 * SECOND + 15 * SECOND;
    for (let i = 0; i < 15; i++) expect(b.charge(later + 60 * SECOND, 2).admitted).toBe(true);
    expect(b.charge(later + 60 * SECOND, 2).admitted).toBe(false);
  });

  it('WITHDRAW_SUBMIT: 5 immediately, then one every six seconds', () => {
    const b = bucket(POOLS.WITHDRAW_SUBMIT);
    const t0 = 5 * SECOND;
    for (let i = 0; i < 5; i++) expect(b.charge(t0, 1).admitted).toBe(true);
    const r = b.charge(t0, 1);
    expect(r).toMatchObject({ admitted: false, retryAfterUs: 6 * SECOND });
    for (let k = 1; k <= 4; k++) {
      expect(b.charge(t0 + k * 6 * SECOND - 1, 1).admitted).toBe(false);
      expect(b.charge(t0 + k * 6 * SECOND, 1).admitted).toBe(true);
    }
  });

  it('reports a truthful retry-after: waiting exactly that long succeeds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 50 }), (cost, drain) => {
        const b = bucket(POOLS.ACCOUNT_SECURITY);
        const t0 = SECOND;
        for (let i = 0; i < drain; i++) b.charge(t0, 1);
        const first = b.charge(t0, cost);
        if (first.admitted || cost > POOLS.ACCOUNT_SECURITY.burst) return;
        expect(b.charge(t0 + first.retryAfterUs, cost).admitted).toBe(true);
      }),
    );
  });

  it('never admits more than burst + refill over any span, whatever the request pattern', () => {
    const policy = POOLS.ACCOUNT_ADMIN;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 * SECOND }), fc.integer({ min: 1, max: 7 })), { minLength: 1, maxLength: 300 }),
        (steps) => {
          const b = bucket(policy);
          let now = 0;
          const admitted: { at: number; cost: number }[] = [];
          for (const [gap, cost] of steps) {
            now += gap;
            if (b.charge(now, cost).admitted) admitted.push({ at: now, cost });
          }
          // Every window [admitted[i].at, admitted[j].at] stays within burst + rate x span.
          for (let i = 0; i < admitted.length; i++) {
            let sum = 0;
            for (let j = i; j < admitted.length; j++) {
              sum += (admitted[j] as { cost: number }).cost;
              const spanUs = (admitted[j] as { at: number }).at - (admitted[i] as { at: number }).at;
              const allowance = policy.burst + (policy.quota * spanUs) / (policy.periodMs * 1000);
              expect(sum).toBeLessThanOrEqual(allowance + 1e-9);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('charges all scopes or none, and names the one that had to wait longest', () => {
    const small = scale({ quota: 60, periodMs: 60_000, burst: 2 }, 2);
    const large = scale({ quota: 60, periodMs: 60_000, burst: 100 }, 2);
    const states: (BucketState | undefined)[] = [undefined, { level: 0, atUs: 0 }];
    const out = chargeAll([large, small], states, 0);
    expect(out).toEqual({ admitted: false, rejectedIndex: 1, remaining: 0, retryAfterUs: 2 * SECOND });
  });
});

describe('trading catalog', () => {
  it('covers VIP0 to VIP10 for PLACE and CANCEL, cancellation never below placement', () => {
    const rules = tradingCatalog();
    expect(rules).toHaveLength(22);
    for (let tier = 0; tier <= 10; tier++) {
      const place = rules.find((r) => r.vipTier === tier && r.policyClass === 'PLACE')!;
      const cancel = rules.find((r) => r.vipTier === tier && r.policyClass === 'CANCEL')!;
      expect(cancel.quotaWeight).toBeGreaterThanOrEqual(place.quotaWeight);
      if (tier > 0) {
        const lower = rules.find((r) => r.vipTier === tier - 1 && r.policyClass === 'PLACE')!;
        expect(place.quotaWeight).toBeGreaterThan(lower.quotaWeight);
      }
    }
  });
});

describe('bucket arithmetic for any policy an operator may set', () => {
  // Bounds of OVERRIDE_LIMITS and any request cost: every intermediate value must be an
  // exact integer below 2^53 (JavaScript here, Lua doubles in Redis), and a rejection's
  // wait positive, or `retry_after_ms` turns negative and clients retry at once forever.
  const largestBurst = (periodMs: number) => Math.min(OVERRIDE_LIMITS.burstWeight, Math.floor(OVERRIDE_LIMITS.burstTimesPeriodMs / periodMs));
  const policy = fc
    .record({
      quota: fc.integer({ min: 1, max: OVERRIDE_LIMITS.quotaWeight }),
      periodMs: fc.integer({ min: 1, max: OVERRIDE_LIMITS.periodMs }),
      burstShare: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ quota, periodMs, burstShare }) => ({ quota, periodMs, burst: Math.max(1, Math.floor(burstShare * largestBurst(periodMs))) }));
  const extremes = fc
    .record({
      quota: fc.constantFrom(1, OVERRIDE_LIMITS.quotaWeight),
      periodMs: fc.constantFrom(1, 8000, OVERRIDE_LIMITS.periodMs),
      largest: fc.boolean(),
    })
    .map(({ quota, periodMs, largest }) => ({ quota, periodMs, burst: largest ? largestBurst(periodMs) : 1 }));

  it('stays exact and reports a positive wait, over any sequence of charges', () => {
    fc.assert(
      fc.property(
        fc.oneof(policy, extremes),
        fc.array(fc.record({ advanceUs: fc.oneof(fc.integer({ min: 0, max: 10 * SECOND }), fc.constant(10 ** 15)), cost: fc.integer({ min: 1, max: MAX_REQUEST_COST }) }), { minLength: 1, maxLength: 40 }),
        (p, steps) => {
          let state: BucketState | undefined;
          let now = 0;
          for (const step of steps) {
            now += step.advanceUs;
            const scaled = scale(p, step.cost);
            for (const v of Object.values(scaled)) expect(Number.isSafeInteger(v)).toBe(true);
            const outcome = chargeAll([scaled], [state], now);
            if (outcome.admitted) {
              const level = outcome.levels[0] as number;
              expect(Number.isSafeInteger(level) && level >= 0 && level <= scaled.capacity).toBe(true);
              expect(outcome.remaining[0]).toBeGreaterThanOrEqual(0);
              state = { level, atUs: now };
            } else {
              expect(Number.isSafeInteger(outcome.retryAfterUs) && outcome.retryAfterUs > 0).toBe(true);
              expect(outcome.remaining).toBeGreaterThanOrEqual(0);
              // The level before refilling plus a full wait's refill is still exact.
              expect(Number.isSafeInteger(scaled.capacity + outcome.retryAfterUs * scaled.rate)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('bounds the policy by 2^53 at its largest', () => {
    for (const periodMs of [1, 8000, OVERRIDE_LIMITS.periodMs]) {
      const largest = scale({ quota: OVERRIDE_LIMITS.quotaWeight, periodMs, burst: largestBurst(periodMs) }, MAX_REQUEST_COST);
      expect(largest.capacity + largest.rate + largest.cost).toBeLessThan(Number.MAX_SAFE_INTEGER);
    }
  });
});
