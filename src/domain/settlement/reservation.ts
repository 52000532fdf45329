import { quoteNotional, type NotionalScale } from '../matching/notional.ts';
import { feeOf, toE18 } from '../money.ts';
import { FEE_SLACK_E18, maxFeePpm, type FeeSchedule } from './fees.ts';

export type Side = 'BUY' | 'SELL';
export type FeeAsset = 'BASE' | 'QUOTE';

/** What reservations need of a market (a service's Market has all of it). */
export interface ReservationMarket extends FeeSchedule {
  readonly baseQuantityScale: number;
  readonly quoteQuantityScale: number;
  readonly notional: NotionalScale;
}

/**
 * What a BUY of `qty` at limit `price` holds in quote (E18): its notional at the limit,
 * which bounds every fill's telescoped quote debit (fills happen at or below the limit),
 * plus, when it pays its fee in quote, the highest fee on that notional and the rounding slack.
 */
export function buyReservation(market: ReservationMarket, price: bigint, qty: bigint, feeAsset: FeeAsset): bigint {
  const notionalE18 = toE18(quoteNotional(price, qty, market.notional), market.quoteQuantityScale);
  return notionalE18 + (feeAsset === 'QUOTE' ? feeOf(notionalE18, maxFeePpm(market)).fee + FEE_SLACK_E18 : 0n);
}

/** A SELL holds exactly the base it may deliver: it pays its fee in quote, out of its proceeds. */
export function sellReservation(market: ReservationMarket, qty: bigint): bigint {
  return toE18(qty, market.baseQuantityScale);
}

/**
 * A BUY bounded by `maxQuoteDebit` (quote-scaled) holds exactly that, and the engine stops
 * it once its fills' notional reaches `cap`, the largest notional whose highest fee still
 * fits: cap * (1e6 + maxFeePpm) < maxQuoteDebit * 1e6.
 */
export function maxQuoteDebitReservation(market: ReservationMarket, maxQuoteDebit: bigint): { hold: bigint; cap: bigint } {
  return {
    hold: toE18(maxQuoteDebit, market.quoteQuantityScale),
    cap: (maxQuoteDebit * 1_000_000n - 1n) / BigInt(1_000_000 + maxFeePpm(market)),
  };
}

/** An order about to be placed: `qty` is what it works (a replacement's total less what its lineage filled). */
export interface OrderToReserve {
  side: Side;
  qty: bigint;
  /** The limit price, or a market order's protection price. */
  limit: bigint;
  feeAsset: FeeAsset;
  maxQuoteDebit?: bigint | undefined;
}

export interface Reservation {
  /** The asset held: quote for a BUY, base for a SELL. */
  asset: FeeAsset;
  hold: bigint;
  /** The engine's `maxQuoteNotional`, for a BUY bounded by `maxQuoteDebit` only. */
  cap?: bigint;
}

export function reservationFor(market: ReservationMarket, order: OrderToReserve): Reservation {
  if (order.side === 'SELL') return { asset: 'BASE', hold: sellReservation(market, order.qty) };
  if (order.maxQuoteDebit !== undefined) return { asset: 'QUOTE', ...maxQuoteDebitReservation(market, order.maxQuoteDebit) };
  return { asset: 'QUOTE', hold: buyReservation(market, order.limit, order.qty, order.feeAsset) };
}

/**
 * A modified resting order holds what a new order of its remaining quantity at its (new)
 * price would: `delta` is what to hold more (positive) or release (negative). Fills
 * telescope on the order's cumulative notional, and ceil(c + x) - ceil(c) <= ceil(x), so
 * the fresh reservation covers what is left whatever was filled before.
 */
export function reReservation(
  market: ReservationMarket,
  order: { side: Side; price: bigint; leaves: bigint; feeAsset: FeeAsset; heldE18: bigint },
): { required: bigint; delta: bigint } {
  const required = order.side === 'BUY' ? buyReservation(market, order.price, order.leaves, order.feeAsset) : sellReservation(market, order.leaves);
  return { required, delta: required - order.heldE18 };
}
