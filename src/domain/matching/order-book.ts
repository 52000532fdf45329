import { codes } from '../errorCatalogue.ts';
import { DONE, Matcher, STOP_EMPTY, sweepWouldTake, wouldTakeFrom } from './crossing.ts';
import { canceled, rested } from './events.ts';
import { notionalScale, type NotionalScale } from './notional.ts';
import { OrderNode } from './price-level.ts';
import { RestingOrders } from './resting-orders.ts';
import type {
  CancelReason,
  Depth,
  MatchEvent,
  ModifyOrder,
  OrderBookConfig,
  OrderId,
  PlaceOrder,
  PlaceRejectReason,
  RestingOrder,
  Side,
} from './types.ts';
import { modifyRejectReason, placeRejectReason, restoredOrderProblem } from './validation.ts';
import { depthOf, restingOrder, restingOrdersOf, snapshotOf } from './views.ts';

/**
 * The matching core of one symbol: a price-time priority limit order book. Pure and
 * sequential: one instance per symbol, commands applied one at a time, time passed in
 * (epoch ns). Every command returns the ordered list of events it caused; invalid
 * commands return a single `rejected` event and change nothing. Semantics:
 * docs/matching.md.
 *
 * This class is the one entry point; it sequences each command over the parts:
 * resting-orders.ts keeps the levels of each side (book-side.ts, sorted, best level last),
 * each level's FIFO (price-level.ts), the orderId index and the GTD expiry heap
 * (expiry-heap.ts) in step; crossing.ts runs a taker against the makers (STP, fills,
 * matchIds); validation.ts refuses bad input before anything changes; views.ts copies
 * depth and orders out.
 */
export class OrderBook {
  readonly symbol: string;
  readonly tickSize: bigint;
  readonly qtyStep: bigint;
  readonly scale: NotionalScale;
  private prioSeq: bigint;
  private readonly book = new RestingOrders();
  private readonly matcher: Matcher;

  constructor(config: OrderBookConfig) {
    if (config.tickSize <= 0n) throw new RangeError('tickSize must be positive');
    const step = config.qtyStep ?? 1n;
    if (step <= 0n) throw new RangeError('qtyStep must be positive');
    this.symbol = config.symbol ?? '';
    this.tickSize = config.tickSize;
    this.qtyStep = step;
    this.scale = notionalScale(config.baseScale, config.quoteScale);
    const matchSeq = config.nextMatchId ?? 1n;
    this.prioSeq = config.nextPrioritySeq ?? 1n;
    if (matchSeq < 1n || this.prioSeq < 1n) throw new RangeError('sequence seeds must be >= 1');
    this.matcher = new Matcher(this.book, step, this.scale, matchSeq);
  }

  /** matchId the next trade gets (persist `nextMatchId - 1n` as the last one). */
  get nextMatchId(): bigint {
    return this.matcher.nextMatchId;
  }

  /** prioritySeq the next resting order gets. */
  get nextPrioritySeq(): bigint {
    return this.prioSeq;
  }

  /** Number of resting orders. */
  get size(): number {
    return this.book.size;
  }

  // ---------------------------------------------------------------------------------
  // Commands
  // ---------------------------------------------------------------------------------

  /** Places a new order at time `nowNs`. */
  place(order: PlaceOrder, nowNs: bigint): MatchEvent[] {
    const out: MatchEvent[] = [];
    const reason = this.validate(order);
    if (reason !== null) {
      out.push({ type: 'rejected', command: 'place', orderId: order.orderId, reason });
      return out;
    }
    out.push({ type: 'accepted', orderId: order.orderId, order });
    const isMarket = order.type === 'MARKET';
    const node = new OrderNode(
      order.orderId,
      order.accountId,
      order.side,
      order.side === 'BUY',
      order.price ?? 0n,
      order.qty,
      order.tif,
      order.postOnly === true,
      order.stpMode ?? 'EXPIRE_MAKER',
      order.expireAtNs ?? null,
    );
    if (node.expireAtNs !== null && node.expireAtNs <= nowNs) {
      out.push(canceled(node, 'EXPIRED', node.remaining, false));
      return out;
    }
    const stop = this.matcher.match(node, !isMarket || order.price !== undefined, order.maxQuoteNotional ?? null, nowNs, out);
    if (stop !== DONE) {
      if (order.tif !== 'IOC') {
        this.book.admit(node);
        this.rest(node, out);
      } else {
        const why: CancelReason = !isMarket ? 'IOC_REMAINDER' : stop === STOP_EMPTY ? 'MARKET_NO_LIQUIDITY' : 'PRICE_PROTECTION';
        out.push(canceled(node, why, node.remaining, false));
      }
    }
    return out;
  }

  /** Cancels a resting order (reason USER). */
  cancel(orderId: OrderId): MatchEvent[] {
    const out: MatchEvent[] = [];
    const node = this.book.get(orderId);
    if (node === undefined) {
      out.push({ type: 'rejected', command: 'cancel', orderId, reason: codes.ORDER_NOT_FOUND });
      return out;
    }
    this.book.remove(node);
    out.push(canceled(node, 'USER', node.remaining, true));
    return out;
  }

  /**
   * Changes a resting order's remaining quantity and/or price at time `nowNs`. A pure
   * quantity decrease (or no change) keeps time priority; a quantity increase or a price
   * change re-enters the order at the back of its new level, matching first if it crosses.
   */
  modify(orderId: OrderId, change: ModifyOrder, nowNs: bigint): MatchEvent[] {
    const out: MatchEvent[] = [];
    const node = this.book.get(orderId);
    const reason = node === undefined ? codes.ORDER_NOT_FOUND : modifyRejectReason(change, this);
    if (reason !== null || node === undefined) {
      out.push({ type: 'rejected', command: 'modify', orderId, reason: reason ?? codes.ORDER_NOT_FOUND });
      return out;
    }
    if (node.expireAtNs !== null && node.expireAtNs <= nowNs) {
      this.book.remove(node);
      out.push(canceled(node, 'EXPIRED', node.remaining, true));
      out.push({ type: 'rejected', command: 'modify', orderId, reason: 'ORDER_EXPIRED' });
      return out;
    }
    const oldPrice = node.price;
    const oldQty = node.remaining;
    const price = change.newPrice ?? oldPrice;
    const qty = change.newQty ?? oldQty;
    if (price === oldPrice && qty <= oldQty) {
      if (qty !== oldQty) node.level!.reduce(node, oldQty - qty);
      out.push({
        type: 'modified',
        orderId,
        accountId: node.accountId,
        side: node.side,
        oldPrice,
        oldQty,
        price,
        qty,
        priorityKept: true,
      });
      return out;
    }
    if (node.postOnly && price !== oldPrice && sweepWouldTake(this.book, node.isBuy, price, nowNs, out)) {
      out.push({ type: 'rejected', command: 'modify', orderId, reason: codes.POST_ONLY_WOULD_TAKE });
      return out;
    }
    this.book.lift(node);
    out.push({
      type: 'modified',
      orderId,
      accountId: node.accountId,
      side: node.side,
      oldPrice,
      oldQty,
      price,
      qty,
      priorityKept: false,
    });
    node.price = price;
    node.remaining = qty;
    if (this.matcher.match(node, true, null, nowNs, out) === DONE) this.book.forget(node);
    else this.rest(node, out);
    return out;
  }

  /**
   * Expires every resting GTD order with expireAtNs <= nowNs, in (expireAtNs,
   * prioritySeq) order. Returns their `canceled` (EXPIRED) events.
   */
  expireDue(nowNs: bigint): MatchEvent[] {
    const out: MatchEvent[] = [];
    for (let node = this.book.nextDue(nowNs); node !== undefined; node = this.book.nextDue(nowNs)) {
      this.book.remove(node);
      out.push(canceled(node, 'EXPIRED', node.remaining, true));
    }
    return out;
  }

  /**
   * Rebuilds resting orders after a restart, without matching. Orders must be sorted by
   * strictly increasing prioritySeq and must not cross each other or the current book.
   * Throws (this is start-up, not a command) on invalid input; raises nextPrioritySeq
   * above the largest restored prioritySeq.
   */
  restore(orders: Iterable<RestingOrder>): void {
    let lastSeq = -1n;
    for (const o of orders) {
      const where = `restore ${this.symbol} order ${String(o.orderId)}`;
      if (this.book.has(o.orderId)) throw new Error(`${where}: duplicate order id`);
      const problem = restoredOrderProblem(o, this);
      if (problem !== null) throw new Error(`${where}: ${problem}`);
      if (o.prioritySeq <= lastSeq) throw new Error(`${where}: prioritySeq not increasing`);
      lastSeq = o.prioritySeq;
      const isBuy = o.side === 'BUY';
      const opposite = (isBuy ? this.book.asks : this.book.bids).best();
      if (opposite !== undefined && (isBuy ? o.price >= opposite.price : o.price <= opposite.price)) {
        throw new Error(`${where}: crosses the book`);
      }
      const node = new OrderNode(
        o.orderId,
        o.accountId,
        o.side,
        isBuy,
        o.price,
        o.qty,
        o.tif,
        o.postOnly,
        o.stpMode,
        o.expireAtNs ?? null,
      );
      this.book.admit(node);
      this.book.enqueue(node, o.prioritySeq);
      if (o.prioritySeq >= this.prioSeq) this.prioSeq = o.prioritySeq + 1n;
    }
  }

  // ---------------------------------------------------------------------------------
  // Reads (no time: expired-but-not-yet-swept GTD orders are included; call expireDue first)
  // ---------------------------------------------------------------------------------

  bestBid(): bigint | null {
    return this.book.bids.best()?.price ?? null;
  }

  bestAsk(): bigint | null {
    return this.book.asks.best()?.price ?? null;
  }

  /** Aggregated levels, best first, at most `levels` per side. */
  depth(levels = Number.MAX_SAFE_INTEGER): Depth {
    return depthOf(this.book, levels);
  }

  /** Why `place` would reject this order, or null: lets a caller refuse it before changing anything. */
  validate(order: PlaceOrder): PlaceRejectReason | null {
    return placeRejectReason(order, this.book.has(order.orderId), this);
  }

  /**
   * Whether an order at `price` on the given side would take: some unexpired resting order
   * on the other side is at that price or better. Changes nothing, so a caller can refuse
   * a post-only order before it reserves anything.
   */
  wouldTake(side: Side, price: bigint, nowNs: bigint): boolean {
    return wouldTakeFrom(this.book, side, price, nowNs);
  }

  openOrder(orderId: OrderId): RestingOrder | undefined {
    const node = this.book.get(orderId);
    return node === undefined ? undefined : restingOrder(node);
  }

  /** Every resting order per side in priority order (best price first, then prioritySeq). */
  snapshot(): { bids: RestingOrder[]; asks: RestingOrder[] } {
    return snapshotOf(this.book);
  }

  /** Every resting order sorted by prioritySeq: the input `restore` expects. */
  restingOrders(): RestingOrder[] {
    return restingOrdersOf(this.book);
  }

  /** Puts an admitted `node` at the back of its level with the next prioritySeq. */
  private rest(node: OrderNode, out: MatchEvent[]): void {
    this.book.enqueue(node, this.prioSeq++);
    out.push(rested(node));
  }
}

/** Factory alias of `new OrderBook(config)`. */
export function createMatchingEngine(config: OrderBookConfig): OrderBook {
  return new OrderBook(config);
}
