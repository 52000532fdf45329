/**
 * A trailing stop (issue 13): pure, prices passed in (Q9). A SELL trailing stop protects a
 * long position: once active it follows the highest price since (the peak) and fires when
 * the price falls back by the trailing distance; a BUY one follows the lowest (the trough)
 * and fires on the rise back. The threshold only ever moves with the position, never
 * against it.
 */
import { invalidArgument } from '../errors.ts';
import { INT64_MAX } from '../money.ts';

/**
 * Bounds of a trailing distance, the same for a standalone trailing stop and an attached
 * leg (recorded in docs/api-decisions.md): a whole number of ticks up to 999,999,999, or
 * 1 to 9,999 basis points.
 */
export const TRAILING_DISTANCE_LIMITS = { maxTicks: 999_999_999n, maxBps: 9_999 } as const;

/** The trailing distance of `field` (a trailing-stop block): exactly one of ticks and bps, each within TRAILING_DISTANCE_LIMITS. */
export function trailingDistanceOf(field: string, b: { trailingDistanceTicks?: string | undefined; trailingDistanceBps?: number | undefined }): { ticks: bigint | null; bps: number | null } {
  if ((b.trailingDistanceTicks === undefined) === (b.trailingDistanceBps === undefined)) {
    throw invalidArgument(field, 'exactly one of trailingDistanceTicks and trailingDistanceBps is required', 'one-of');
  }
  if (b.trailingDistanceTicks !== undefined) {
    if (typeof b.trailingDistanceTicks !== 'string' || !/^[1-9][0-9]{0,8}$/.test(b.trailingDistanceTicks)) {
      throw invalidArgument(`${field}.trailingDistanceTicks`, `must be a whole number of ticks, 1 to ${TRAILING_DISTANCE_LIMITS.maxTicks}`, 'range');
    }
    return { ticks: BigInt(b.trailingDistanceTicks), bps: null };
  }
  const bps = b.trailingDistanceBps as number;
  if (!Number.isInteger(bps) || bps <= 0 || bps > TRAILING_DISTANCE_LIMITS.maxBps) {
    throw invalidArgument(`${field}.trailingDistanceBps`, `must be 1 to ${TRAILING_DISTANCE_LIMITS.maxBps}`, 'range');
  }
  return { ticks: null, bps };
}

export interface TrailingParams {
  side: 'BUY' | 'SELL';
  /** Starts following once the price reaches it (SELL: at or above; BUY: at or below); null: at once. */
  activationPrice: bigint | null;
  distance: { ticks: bigint; tickSize: bigint } | { bps: number };
}

export interface TrailingState {
  active: boolean;
  /** The peak (SELL) or trough (BUY) since activation. */
  extreme: bigint | null;
  /** Where it fires; null until active. */
  threshold: bigint | null;
}

export const INITIAL_TRAILING: TrailingState = { active: false, extreme: null, threshold: null };

export function distanceAt(params: TrailingParams, extreme: bigint): bigint {
  return 'ticks' in params.distance ? params.distance.ticks * params.distance.tickSize : (extreme * BigInt(params.distance.bps)) / 10_000n;
}

/**
 * Where the stop fires, kept within 0 .. INT64_MAX (what a price column holds): a SELL
 * threshold below zero and a BUY one past INT64_MAX both mean "no trade price reaches it",
 * and the bound says the same while staying storable (recorded in docs/api-decisions.md).
 */
function thresholdOf(params: TrailingParams, extreme: bigint): bigint {
  const d = distanceAt(params, extreme);
  const t = params.side === 'SELL' ? extreme - d : extreme + d;
  return t < 0n ? 0n : t > INT64_MAX ? INT64_MAX : t;
}

/** The state after a trade at `price`, and whether that trade fires the stop. */
export function onTrailingPrice(params: TrailingParams, state: TrailingState, price: bigint): { state: TrailingState; fire: boolean } {
  const sell = params.side === 'SELL';
  let next = state;
  if (!state.active) {
    const reached = params.activationPrice === null || (sell ? price >= params.activationPrice : price <= params.activationPrice);
    if (!reached) return { state, fire: false };
    next = { active: true, extreme: price, threshold: thresholdOf(params, price) };
    return { state: next, fire: false };
  }
  const extreme = state.extreme as bigint;
  const better = sell ? price > extreme : price < extreme;
  if (better) {
    const candidate = thresholdOf(params, price);
    const current = state.threshold as bigint;
    // With a distance in bps the threshold of a higher peak is still higher; keep the
    // monotone rule explicit anyway: it never moves against the position.
    const threshold = sell ? (candidate > current ? candidate : current) : candidate < current ? candidate : current;
    next = { active: true, extreme: price, threshold };
  }
  const t = next.threshold as bigint;
  return { state: next, fire: sell ? price <= t : price >= t };
}

/** The furthest a BUY trailing stop's threshold can ever be: what its funds are held for. */
export function worstThreshold(params: TrailingParams, reference: bigint): bigint {
  const start = params.activationPrice ?? reference;
  return thresholdOf(params, start);
}
