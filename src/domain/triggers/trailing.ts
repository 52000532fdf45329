/**
 * A trailing stop (issue 13): pure, prices passed in (Q9). A SELL trailing stop protects a
 * long position: once active it follows the highest price since (the peak) and fires when
 * the price falls back by the trailing distance; a BUY one follows the lowest (the trough)
 * and fires on the rise back. The threshold only ever moves with the position, never
 * against it.
 */
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

function thresholdOf(params: TrailingParams, extreme: bigint): bigint {
  const d = distanceAt(params, extreme);
  return params.side === 'SELL' ? extreme - d : extreme + d;
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
