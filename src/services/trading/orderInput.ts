import { invalidArgument } from '../../domain/errors.ts';
import { quoteNotional } from '../../domain/matching/index.ts';
import { trailingDistanceOf } from '../../domain/triggers/index.ts';
import { parseScaled } from '../../domain/money.ts';
import { parseRfc3339Ns } from '../../domain/time.ts';
import type { Market } from '../markets.ts';
import type { RiskLegRow } from './writeSet.ts';

/**
 * A new order's body as the transports hand it over (REST and GraphQL shapes both map to
 * it), and its validation against the market: everything a body can get wrong on its own,
 * before the book or balances are consulted.
 */

/** A GTD expiry's bounds after validation time (spec 4.5); a trigger's expiry shares them. */
export const MAX_EXPIRY_NS = 30n * 24n * 3600n * 1_000_000_000n;
export const MIN_EXPIRY_NS = 1_000_000_000n;

export interface CreateOrderInput {
  subaccountId?: string;
  order: {
    symbol: string;
    side: 'BUY' | 'SELL';
    baseQty: string;
    clientOrderId?: string;
    feeAsset?: 'QUOTE' | 'BASE';
    selfTradePreventionMode?: 'EXPIRE_MAKER' | 'EXPIRE_TAKER' | 'EXPIRE_BOTH' | 'DECREMENT';
    limitGtc?: { price: string; postOnly?: boolean };
    /** `expireAt`: RFC 3339 with an offset, exact to the nanosecond. */
    limitGtd?: { price: string; expireAt: string; postOnly?: boolean };
    limitIoc?: { price: string; maxQuoteDebit?: string };
    marketIoc?: { clientRefPrice?: string; maxSlippageTicks?: number; maxSlippageBps?: number; maxQuoteDebit?: string };
    attachedRisk?: AttachedRiskInput;
  };
}

export interface RiskChildInput {
  marketIoc?: Record<string, never>;
  limit?: { price: string; postOnly?: boolean };
}

/** Spec 2.7 attached risk, as submitted: stored with the order, executed by the trigger engine. */
export interface AttachedRiskInput {
  oco?: boolean;
  stopLoss?: { triggerPrice: string; child: RiskChildInput };
  takeProfit?: { triggerPrice: string; child: RiskChildInput };
  trailingStop?: { activationPrice?: string; maxSlippageTicks?: number; maxSlippageBps?: number; trailingDistanceTicks?: string; trailingDistanceBps?: number };
}

export function validateNewOrder(input: CreateOrderInput, market: Market, nowNs: bigint) {
  const o = input.order;
  const variants = (['limitGtc', 'limitGtd', 'limitIoc', 'marketIoc'] as const).filter((k) => o[k] !== undefined);
  if (variants.length !== 1) {
    throw invalidArgument('order', 'exactly one of limitGtc, limitGtd, limitIoc and marketIoc is required', 'one-of');
  }
  const variant = variants[0] as 'limitGtc' | 'limitGtd' | 'limitIoc' | 'marketIoc';
  const feeAsset = o.feeAsset ?? 'QUOTE';
  if (o.side === 'SELL' && feeAsset !== 'QUOTE') {
    throw invalidArgument('order.feeAsset', 'SELL orders pay fees in QUOTE', 'sell-fee-asset');
  }
  const qty = parseScaled(o.baseQty, market.baseQuantityScale, 'order.baseQty');
  if (qty < market.minQty) throw invalidArgument('order.baseQty', 'is below the market minimum quantity', 'min-qty');
  const parsePrice = (text: string, field: string) => {
    const p = parseScaled(text, 9, field);
    if (p % market.tickSize !== 0n) throw invalidArgument(field, 'is not a multiple of the tick size', 'tick-size');
    return p;
  };
  let price = 0n;
  let tif: 'GTC' | 'GTD' | 'IOC' = 'IOC';
  let postOnly = false;
  let expireAtNs: bigint | undefined;
  let maxQuoteDebit: bigint | undefined;
  let refPrice: bigint | undefined;
  const market_ = o.marketIoc;
  if (variant === 'limitGtc') {
    price = parsePrice(o.limitGtc!.price, 'order.limitGtc.price');
    tif = 'GTC';
    postOnly = o.limitGtc!.postOnly === true;
  } else if (variant === 'limitGtd') {
    price = parsePrice(o.limitGtd!.price, 'order.limitGtd.price');
    tif = 'GTD';
    postOnly = o.limitGtd!.postOnly === true;
    const at = parseRfc3339Ns(o.limitGtd!.expireAt);
    if (at === null) throw invalidArgument('order.limitGtd.expireAt', 'must be an RFC 3339 date-time with an offset', 'rfc3339');
    expireAtNs = at;
    if (expireAtNs < nowNs + MIN_EXPIRY_NS || expireAtNs > nowNs + MAX_EXPIRY_NS) {
      throw invalidArgument('order.limitGtd.expireAt', 'must be 1 second to 30 days after now', 'expiry-range');
    }
  } else if (variant === 'limitIoc') {
    price = parsePrice(o.limitIoc!.price, 'order.limitIoc.price');
    if (o.limitIoc!.maxQuoteDebit !== undefined) {
      if (o.side !== 'BUY') throw invalidArgument('order.limitIoc.maxQuoteDebit', 'is only for BUY orders', 'buy-only');
      maxQuoteDebit = parseScaled(o.limitIoc!.maxQuoteDebit, market.quoteQuantityScale, 'order.limitIoc.maxQuoteDebit');
    }
  } else if (market_) {
    if ((market_.maxSlippageTicks === undefined) === (market_.maxSlippageBps === undefined)) {
      throw invalidArgument('order.marketIoc', 'exactly one of maxSlippageTicks and maxSlippageBps is required', 'one-of');
    }
    if (market_.maxSlippageTicks !== undefined && market_.maxSlippageTicks <= 0) {
      throw invalidArgument('order.marketIoc.maxSlippageTicks', 'must be positive', 'positive');
    }
    if (market_.maxSlippageBps !== undefined && (market_.maxSlippageBps <= 0 || market_.maxSlippageBps > 10_000)) {
      throw invalidArgument('order.marketIoc.maxSlippageBps', 'must be 1 to 10000', 'range');
    }
    if (market_.maxQuoteDebit !== undefined) {
      if (o.side !== 'BUY') throw invalidArgument('order.marketIoc.maxQuoteDebit', 'is only for BUY orders', 'buy-only');
      maxQuoteDebit = parseScaled(market_.maxQuoteDebit, market.quoteQuantityScale, 'order.marketIoc.maxQuoteDebit');
    }
    if (market_.clientRefPrice !== undefined) refPrice = parsePrice(market_.clientRefPrice, 'order.marketIoc.clientRefPrice');
  }
  if (variant !== 'marketIoc' && quoteNotional(price, qty, market.notional) < market.minNotional) {
    throw invalidArgument('order.baseQty', 'the order value is below the market minimum notional', 'min-notional');
  }
  if (o.clientOrderId !== undefined && (o.clientOrderId.length < 1 || o.clientOrderId.length > 64 || !/^[\x21-\x7e]+$/.test(o.clientOrderId))) {
    throw invalidArgument('order.clientOrderId', 'must be 1 to 64 printable ASCII characters', 'client-order-id');
  }
  const riskLegs = validateRisk(o.attachedRisk, o.side, variant === 'marketIoc' ? undefined : price, parsePrice);
  return { variant, qty, price, tif, postOnly, expireAtNs, maxQuoteDebit, refPrice, feeAsset, riskLegs, oco: o.attachedRisk?.oco === true };
}

/**
 * Attached-risk legs protect the position the parent opens: for a BUY the stop-loss sits
 * below the parent's price and the take-profit above (the reverse for a SELL).
 */
function validateRisk(risk: AttachedRiskInput | undefined, side: 'BUY' | 'SELL', parentPrice: bigint | undefined, parsePrice: (text: string, field: string) => bigint, prefix = 'order.attachedRisk') {
  if (!risk) return [];
  const legs: Omit<RiskLegRow, 'orderId' | 'triggerId'>[] = [];
  const base = { triggerPrice: null, childKind: 'MARKET_IOC' as const, childLimitPrice: null, childPostOnly: false, activationPrice: null, maxSlippageTicks: null, maxSlippageBps: null, trailingDistanceTicks: null, trailingDistanceBps: null, status: 'PENDING' as const };
  const child = (c: RiskChildInput, field: string) => {
    if ((c.marketIoc === undefined) === (c.limit === undefined)) throw invalidArgument(field, 'exactly one of marketIoc and limit is required', 'one-of');
    return c.limit ? { childKind: 'LIMIT' as const, childLimitPrice: parsePrice(c.limit.price, `${field}.limit.price`), childPostOnly: c.limit.postOnly === true } : {};
  };
  for (const kind of ['stopLoss', 'takeProfit'] as const) {
    const leg = risk[kind];
    if (!leg) continue;
    const field = `${prefix}.${kind}`;
    const trigger = parsePrice(leg.triggerPrice, `${field}.triggerPrice`);
    const below = (kind === 'stopLoss') === (side === 'BUY');
    if (parentPrice !== undefined && (below ? trigger >= parentPrice : trigger <= parentPrice)) {
      throw invalidArgument(`${field}.triggerPrice`, `must be ${below ? 'below' : 'above'} the order's price`, 'protective-side');
    }
    legs.push({ ...base, kind: kind === 'stopLoss' ? 'STOP_LOSS' : 'TAKE_PROFIT', triggerPrice: trigger, ...child(leg.child, `${field}.child`) });
  }
  const trail = risk.trailingStop;
  if (trail) {
    const field = `${prefix}.trailingStop`;
    const distance = trailingDistanceOf(field, trail);
    if ((trail.maxSlippageTicks === undefined) === (trail.maxSlippageBps === undefined)) {
      throw invalidArgument(field, 'exactly one of maxSlippageTicks and maxSlippageBps is required', 'one-of');
    }
    if (trail.maxSlippageTicks !== undefined && (!Number.isInteger(trail.maxSlippageTicks) || trail.maxSlippageTicks <= 0)) {
      throw invalidArgument(`${field}.maxSlippageTicks`, 'must be a positive integer', 'positive');
    }
    if (trail.maxSlippageBps !== undefined && (!Number.isInteger(trail.maxSlippageBps) || trail.maxSlippageBps <= 0 || trail.maxSlippageBps > 10_000)) {
      throw invalidArgument(`${field}.maxSlippageBps`, 'must be 1 to 10000', 'range');
    }
    legs.push({
      ...base,
      kind: 'TRAILING_STOP',
      activationPrice: trail.activationPrice !== undefined ? parsePrice(trail.activationPrice, `${field}.activationPrice`) : null,
      maxSlippageTicks: trail.maxSlippageTicks ?? null,
      maxSlippageBps: trail.maxSlippageBps ?? null,
      trailingDistanceTicks: distance.ticks,
      trailingDistanceBps: distance.bps,
    });
  }
  // One-cancels-others needs others: any two or all three of the exits, which then form one group.
  if (risk.oco && legs.length < 2) {
    throw invalidArgument(`${prefix}.oco`, 'needs at least two of stopLoss, takeProfit and trailingStop', 'oco-pair');
  }
  return legs;
}

export type ValidatedOrder = ReturnType<typeof validateNewOrder>;

/**
 * An attached-risk block set on an existing order (POST /v1/orders/attached-risk): the rules
 * of createOrder's, field paths under `attachedRisk`; `parentPrice` is the order's limit
 * price (none for a market order).
 */
export function validateAttachedRisk(risk: AttachedRiskInput, side: 'BUY' | 'SELL', parentPrice: bigint | undefined, market: Market): ValidatedOrder['riskLegs'] {
  const parsePrice = (text: string, field: string) => {
    const p = parseScaled(text, 9, field);
    if (p % market.tickSize !== 0n) throw invalidArgument(field, 'is not a multiple of the tick size', 'tick-size');
    return p;
  };
  return validateRisk(risk, side, parentPrice, parsePrice, 'attachedRisk');
}
