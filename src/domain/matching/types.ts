import type { codes } from '../errorCatalogue.ts';

/**
 * Public types of the matching core. Plain data only: every price is a Q9 integer
 * (1 = 1e-9 quote unit), every quantity an integer in the pair's base scale, every
 * instant epoch nanoseconds, all as `bigint`. See docs/matching.md for the semantics.
 */

export type Side = 'BUY' | 'SELL';
export type OrderType = 'LIMIT' | 'MARKET';
export type TimeInForce = 'GTC' | 'GTD' | 'IOC';
/** Binance semantics; the taker's mode governs. */
export type StpMode = 'EXPIRE_MAKER' | 'EXPIRE_TAKER' | 'EXPIRE_BOTH' | 'DECREMENT';

/** Any id the service likes; compared with `===` (Map keys), so use one type per book. */
export type OrderId = string | number | bigint;
/** Compared with `===` for self-trade prevention; use one type per book. */
export type AccountId = string | number | bigint;

export interface OrderBookConfig {
  /** For messages only. */
  symbol?: string;
  /** Price increment in Q9 units (10_000_000n = 0.01). Every LIMIT price must be a multiple. */
  tickSize: bigint;
  /** Quantity increment in base-scaled units; default 1n. */
  qtyStep?: bigint;
  /** base quantity integer = human quantity x 10^baseScale. */
  baseScale: number;
  /** quote amount integer = human amount x 10^quoteScale. */
  quoteScale: number;
  /** matchId of the next trade (the persisted last matchId + 1); default 1n. */
  nextMatchId?: bigint;
  /** prioritySeq given to the next order that rests; default 1n. Raised by `restore`. */
  nextPrioritySeq?: bigint;
}

/** A new order. The engine never mutates it (the `accepted` event carries this object). */
export interface PlaceOrder {
  orderId: OrderId;
  accountId: AccountId;
  side: Side;
  /** MARKET requires tif IOC and never rests. */
  type: OrderType;
  tif: TimeInForce;
  /**
   * LIMIT: the limit price (> 0, a multiple of tickSize).
   * MARKET: the protection price, the worst acceptable execution price computed by the
   * service from the reference price and the slippage allowance (> 0, any Q9 value);
   * absent means no protection.
   */
  price?: bigint;
  /** Base-scaled quantity, > 0, a multiple of qtyStep. */
  qty: bigint;
  /** LIMIT GTC/GTD only: canceled whole (reason POST_ONLY) if it would take. */
  postOnly?: boolean;
  /** Default EXPIRE_MAKER. */
  stpMode?: StpMode;
  /** GTD only (required there): not executable at or after this instant. */
  expireAtNs?: bigint;
  /**
   * BUY IOC only (LIMIT IOC or MARKET): cap on the sum over fills of
   * `quoteNotional(price, qty)` (rounded up per fill), in quote-scaled units.
   */
  maxQuoteNotional?: bigint;
}

export interface ModifyOrder {
  /** New remaining (leaves) quantity. Lower keeps time priority; higher loses it. */
  newQty?: bigint;
  /** New limit price; a change loses time priority and may cross and match. */
  newPrice?: bigint;
}

/** A resting order, as `openOrder` returns it and as `restore` takes it. */
export interface RestingOrder {
  orderId: OrderId;
  accountId: AccountId;
  side: Side;
  tif: 'GTC' | 'GTD';
  price: bigint;
  /** Remaining (leaves) quantity on the book. */
  qty: bigint;
  prioritySeq: bigint;
  postOnly: boolean;
  stpMode: StpMode;
  /** Present for GTD only. */
  expireAtNs?: bigint;
}

export type CancelReason =
  /** cancel() */
  | 'USER'
  /** LIMIT IOC remainder after matching. */
  | 'IOC_REMAINDER'
  /** Self-trade prevention (EXPIRE_* modes, or DECREMENT reducing the order to zero). */
  | 'STP'
  /** GTD order at or after its expiry (expireDue, met during matching, or on arrival). */
  | 'EXPIRED'
  /** Post-only order that would have taken liquidity; nothing matched. */
  | 'POST_ONLY'
  /** BUY IOC/market stopped by maxQuoteNotional. */
  | 'NOTIONAL_CAP'
  /** MARKET remainder: the opposite side is empty. */
  | 'MARKET_NO_LIQUIDITY'
  /** MARKET remainder: liquidity remains, but only beyond the protection price. */
  | 'PRICE_PROTECTION';

/** Why a new order is refused: the reasons `validate` can answer, which reach clients as codes. */
export type PlaceRejectReason =
  | typeof codes.DUPLICATE_ORDER_ID
  | typeof codes.INVALID_SIDE
  | typeof codes.INVALID_ORDER_TYPE
  | typeof codes.INVALID_STP_MODE
  | typeof codes.INVALID_QTY
  | typeof codes.INVALID_QTY_STEP
  | typeof codes.INVALID_PRICE
  | typeof codes.INVALID_TICK
  | typeof codes.INVALID_EXPIRY
  | typeof codes.INVALID_NOTIONAL_CAP;

/** Why a command is refused: a catalogue code, but for an expired order (answered as ORDER_NOT_FOUND). */
export type RejectReason = PlaceRejectReason | typeof codes.ORDER_NOT_FOUND | typeof codes.INVALID_MODIFY | typeof codes.POST_ONLY_WOULD_TAKE | 'ORDER_EXPIRED';

export interface AcceptedEvent {
  type: 'accepted';
  orderId: OrderId;
  /** The command object itself (not copied). */
  order: PlaceOrder;
}

export interface TradeEvent {
  type: 'trade';
  matchId: bigint;
  /** Always the maker's price. */
  price: bigint;
  qty: bigint;
  makerOrderId: OrderId;
  takerOrderId: OrderId;
  makerAccountId: AccountId;
  takerAccountId: AccountId;
  takerSide: Side;
  /** Maker's remaining quantity after this trade (0n: filled, off the book). */
  makerRemaining: bigint;
  /** Taker's remaining quantity after this trade. */
  takerRemaining: bigint;
}

export interface CanceledEvent {
  type: 'canceled';
  orderId: OrderId;
  accountId: AccountId;
  side: Side;
  /** The order's limit price (MARKET: the protection price, 0n when none). */
  price: bigint;
  reason: CancelReason;
  /** Quantity canceled: the order's whole remaining quantity; the order is terminal. */
  remaining: bigint;
  /** True when the order was on the book (the book loses `remaining` at `price`). */
  wasResting: boolean;
}

/** DECREMENT self-trade prevention reduced an order that stays live (no trade). */
export interface DecrementedEvent {
  type: 'decremented';
  orderId: OrderId;
  accountId: AccountId;
  side: Side;
  price: bigint;
  reason: 'STP';
  /** Quantity removed. */
  qty: bigint;
  /** Quantity left (> 0n). */
  remaining: bigint;
  wasResting: boolean;
}

export interface RestedEvent {
  type: 'rested';
  orderId: OrderId;
  accountId: AccountId;
  side: Side;
  price: bigint;
  /** Quantity now resting. */
  qty: bigint;
  prioritySeq: bigint;
}

/**
 * A modify was applied. With `priorityKept` the order stayed in place with quantity
 * `qty` (no other event follows). Without it the order left the book (oldQty at
 * oldPrice) and re-entered at `price` with `qty` like a new order: trade, STP, expiry
 * events may follow, then `rested` with a new prioritySeq unless it was filled or canceled.
 */
export interface ModifiedEvent {
  type: 'modified';
  orderId: OrderId;
  accountId: AccountId;
  side: Side;
  oldPrice: bigint;
  oldQty: bigint;
  price: bigint;
  qty: bigint;
  priorityKept: boolean;
}

export interface RejectedEvent {
  type: 'rejected';
  command: 'place' | 'cancel' | 'modify';
  orderId: OrderId;
  reason: RejectReason;
}

export type MatchEvent =
  | AcceptedEvent
  | TradeEvent
  | CanceledEvent
  | DecrementedEvent
  | RestedEvent
  | ModifiedEvent
  | RejectedEvent;

export interface DepthLevel {
  price: bigint;
  /** Total remaining quantity at the price. */
  qty: bigint;
  /** Number of orders at the price. */
  orders: number;
}

export interface Depth {
  /** Best (highest) first. */
  bids: DepthLevel[];
  /** Best (lowest) first. */
  asks: DepthLevel[];
}
