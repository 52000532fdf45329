import type { BucketPolicy } from './catalog.ts';

/**
 * Continuous weighted token buckets in exact integer arithmetic. A level is kept in
 * units x periodUs, so refilling `quota` units per `periodUs` adds exactly `quota`
 * per elapsed microsecond: no fractions, no floats, no window resets. The Redis Lua
 * script (infra) runs the same steps; every value stays below 2^53.
 */
export interface BucketState {
  /** units x periodUs; absent bucket = full. */
  level: number;
  /** Microseconds of the last update. */
  atUs: number;
}

export interface BucketCharge {
  key: string;
  policy: BucketPolicy;
  cost: number;
}

export interface ScaledBucket {
  capacity: number;
  rate: number;
  cost: number;
  periodUs: number;
}

export function scale(policy: BucketPolicy, cost: number): ScaledBucket {
  const periodUs = policy.periodMs * 1000;
  return { capacity: policy.burst * periodUs, rate: policy.quota, cost: cost * periodUs, periodUs };
}

/** The level at `nowUs`, refilled since the last update and capped at capacity. */
export function levelAt(b: ScaledBucket, state: BucketState | undefined, nowUs: number): number {
  if (!state) return b.capacity;
  const fullAfter = Math.ceil((b.capacity - state.level) / b.rate);
  const elapsed = Math.min(Math.max(0, nowUs - state.atUs), Math.max(0, fullAfter));
  return Math.min(b.capacity, state.level + elapsed * b.rate);
}

export type ChargeOutcome =
  | { admitted: true; levels: number[]; remaining: number[] }
  | { admitted: false; rejectedIndex: number; remaining: number; retryAfterUs: number };

/**
 * Charges every bucket or none. When any cannot pay, the one needing the longest wait
 * is reported: waiting that long lets every bucket pay (retry-after is truthful).
 */
export function chargeAll(buckets: ScaledBucket[], states: (BucketState | undefined)[], nowUs: number): ChargeOutcome {
  const levels = buckets.map((b, i) => levelAt(b, states[i], nowUs));
  let worst = -1;
  let worstWait = 0;
  buckets.forEach((b, i) => {
    const level = levels[i] as number;
    if (level < b.cost) {
      const wait = Math.ceil((b.cost - level) / b.rate);
      if (wait > worstWait) {
        worst = i;
        worstWait = wait;
      }
    }
  });
  if (worst >= 0) {
    const b = buckets[worst] as ScaledBucket;
    return { admitted: false, rejectedIndex: worst, remaining: Math.floor((levels[worst] as number) / b.periodUs), retryAfterUs: worstWait };
  }
  const after = buckets.map((b, i) => (levels[i] as number) - b.cost);
  return { admitted: true, levels: after, remaining: buckets.map((b, i) => Math.floor((after[i] as number) / b.periodUs)) };
}
