import { codes } from '../errorCatalogue.ts';
import { maxQtyForBudget, notionalScale, quoteNotional, type NotionalScale } from './notional.ts';
import type {
  AccountId,
  CancelReason,
  Depth,
  DepthLevel,
  MatchEvent,
  ModifyOrder,
  OrderBookConfig,
  OrderId,
  PlaceOrder,
  PlaceRejectReason,
  RejectReason,
  RestingOrder,
  Side,
  StpMode,
  TimeInForce,
} from './types.ts';

/**
 * The matching core of one symbol: a price-time priority limit order book. Pure and
 * sequential: one instance per symbol, commands applied one at a time, time passed in
 * (epoch ns). Every command returns the ordered list of events it caused; invalid
 * commands return a single `rejected` event and change nothing. Semantics:
 * docs/matching.md.
 *
 * Structure: each side keeps its price levels sorted worst..best in chunks (BookSide: the
 * best level is the last element, so consuming it is a pop); a level is an intrusive
 * doubly-linked FIFO of orders; an orderId -> order Map gives O(1) cancel; a binary
 * min-heap on (expireAtNs, prioritySeq) with lazy deletion finds due GTD orders.
 */

/** match() outcomes. */
const DONE = 0; // taker filled, or terminated (canceled) inside match
const STOP_EMPTY = 1; // opposite side empty, taker has remaining quantity
const STOP_PRICE = 2; // best opposite price does not cross the taker's limit

class OrderNode {
  prev: OrderNode | null = null;
  next: OrderNode | null = null;
  level: PriceLevel | null = null;
  prioritySeq = 0n;
  constructor(
    readonly id: OrderId,
    readonly accountId: AccountId,
    readonly side: Side,
    readonly isBuy: boolean,
    public price: bigint,
    public remaining: bigint,
    readonly tif: TimeInForce,
    readonly postOnly: boolean,
    readonly stpMode: StpMode,
    readonly expireAtNs: bigint | null,
  ) {}
}

class PriceLevel {
  head: OrderNode | null = null;
  tail: OrderNode | null = null;
  count = 0;
  constructor(
    readonly price: bigint,
    public total: bigint,
  ) {}
}

/**
 * One side's price levels: a two-level sorted structure (a B+tree of height 2). Levels are
 * kept worst..best in chunks of at most MAX_CHUNK, the chunks themselves in worst..best
 * order, so the best level is the last element of the last chunk: taking it is a pop, and
 * activity near the touch moves few elements. Inserting or removing a level elsewhere is a
 * binary search over chunks, one within the chunk, and a splice of at most MAX_CHUNK
 * elements. Measured against one flat sorted array and the sorted-btree package in
 * docs/matching.md: equal to the array on a narrow book, faster than both on a wide one.
 */
const MAX_CHUNK = 64;
const MIN_CHUNK = 8;
class BookSide {
  /** Chunks of levels, each sorted worst..best, chunks in worst..best order; none empty. */
  readonly chunks: PriceLevel[][] = [];
  private top: PriceLevel | undefined = undefined;
  constructor(readonly isBid: boolean) {}

  /** Index of the first chunk whose best level is at `price` or better; chunks.length if none. */
  private chunkFor(price: bigint): number {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length;
    if (this.isBid) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const c = chunks[mid]!;
        if (c[c.length - 1]!.price < price) lo = mid + 1;
        else hi = mid;
      }
    } else {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const c = chunks[mid]!;
        if (c[c.length - 1]!.price > price) lo = mid + 1;
        else hi = mid;
      }
    }
    return lo;
  }

  private static search(levels: PriceLevel[], price: bigint, isBid: boolean): number {
    let lo = 0;
    let hi = levels.length;
    if (isBid) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (levels[mid]!.price < price) lo = mid + 1;
        else hi = mid;
      }
    } else {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (levels[mid]!.price > price) lo = mid + 1;
        else hi = mid;
      }
    }
    return lo;
  }

  add(node: OrderNode): void {
    const price = node.price;
    let level: PriceLevel;
    const top = this.top;
    if (top !== undefined && top.price === price) {
      level = top;
    } else if (top === undefined || (this.isBid ? price > top.price : price < top.price)) {
      level = new PriceLevel(price, 0n);
      const chunks = this.chunks;
      const last = chunks[chunks.length - 1];
      if (last === undefined || last.length >= MAX_CHUNK) chunks.push([level]);
      else last.push(level);
      this.top = level;
    } else {
      const chunks = this.chunks;
      const ci = this.chunkFor(price);
      const chunk = chunks[ci]!; // exists: price is not better than top
      const i = BookSide.search(chunk, price, this.isBid);
      const found = chunk[i];
      if (found !== undefined && found.price === price) {
        level = found;
      } else {
        level = new PriceLevel(price, 0n);
        chunk.splice(i, 0, level);
        if (chunk.length > MAX_CHUNK) chunks.splice(ci + 1, 0, chunk.splice(MAX_CHUNK >> 1));
      }
    }
    node.level = level;
    node.next = null;
    node.prev = level.tail;
    if (level.tail === null) level.head = node;
    else level.tail.next = node;
    level.tail = node;
    level.count++;
    level.total += node.remaining;
  }

  unlink(node: OrderNode): void {
    const level = node.level!;
    if (node.prev === null) level.head = node.next;
    else node.prev.next = node.next;
    if (node.next === null) level.tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = null;
    node.next = null;
    node.level = null;
    if (--level.count === 0) this.dropLevel(level);
  }

  private dropLevel(level: PriceLevel): void {
    const chunks = this.chunks;
    if (level === this.top) {
      const last = chunks[chunks.length - 1]!;
      last.pop();
      if (last.length === 0) chunks.pop();
      const c = chunks[chunks.length - 1];
      this.top = c === undefined ? undefined : c[c.length - 1];
      return;
    }
    const ci = this.chunkFor(level.price);
    const chunk = chunks[ci]!;
    chunk.splice(BookSide.search(chunk, level.price, this.isBid), 1);
    if (chunk.length === 0) {
      chunks.splice(ci, 1);
    } else if (chunk.length < MIN_CHUNK) {
      // Keep chunks from fragmenting: fold a small chunk into a neighbour with room.
      const prev = chunks[ci - 1];
      const next = chunks[ci + 1];
      if (prev !== undefined && prev.length + chunk.length <= MAX_CHUNK) {
        for (const l of chunk) prev.push(l);
        chunks.splice(ci, 1);
      } else if (next !== undefined && next.length + chunk.length <= MAX_CHUNK) {
        next.unshift(...chunk);
        chunks.splice(ci, 1);
      }
    }
  }

  best(): PriceLevel | undefined {
    return this.top;
  }

  depth(n: number): DepthLevel[] {
    const out: DepthLevel[] = [];
    const chunks = this.chunks;
    for (let c = chunks.length - 1; c >= 0; c--) {
      const chunk = chunks[c]!;
      for (let i = chunk.length - 1; i >= 0; i--) {
        if (out.length >= n) return out;
        const l = chunk[i]!;
        out.push({ price: l.price, qty: l.total, orders: l.count });
      }
    }
    return out;
  }

  /** Levels best first. */
  *bestFirst(): Generator<PriceLevel> {
    const chunks = this.chunks;
    for (let c = chunks.length - 1; c >= 0; c--) {
      const chunk = chunks[c]!;
      for (let i = chunk.length - 1; i >= 0; i--) yield chunk[i]!;
    }
  }
}

interface HeapEntry {
  at: bigint;
  seq: bigint;
  node: OrderNode;
}

/** Binary min-heap of GTD expiries keyed (at, seq); stale entries are skipped lazily. */
class ExpiryHeap {
  items: HeapEntry[] = [];

  push(e: HeapEntry): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      const t = a[i]!;
      a[i] = a[p]!;
      a[p] = t;
      i = p;
    }
  }

  peek(): HeapEntry | undefined {
    return this.items[0];
  }

  pop(): HeapEntry | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      this.down(0);
    }
    return top;
  }

  private down(i: number): void {
    const a = this.items;
    const n = a.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && less(a[l]!, a[m]!)) m = l;
      if (r < n && less(a[r]!, a[m]!)) m = r;
      if (m === i) return;
      const t = a[i]!;
      a[i] = a[m]!;
      a[m] = t;
      i = m;
    }
  }

  /** Keeps only entries satisfying `keep`, then re-heapifies. */
  compact(keep: (e: HeapEntry) => boolean): void {
    this.items = this.items.filter(keep);
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }
}

function less(x: HeapEntry, y: HeapEntry): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
}

function isLive(e: HeapEntry): boolean {
  return e.node.level !== null && e.node.prioritySeq === e.seq;
}

const STP_MODES: ReadonlySet<string> = new Set(['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT']);

export class OrderBook {
  readonly symbol: string;
  readonly tickSize: bigint;
  readonly qtyStep: bigint;
  readonly scale: NotionalScale;
  private matchSeq: bigint;
  private prioSeq: bigint;
  private readonly bids = new BookSide(true);
  private readonly asks = new BookSide(false);
  private readonly index = new Map<OrderId, OrderNode>();
  private readonly expiries = new ExpiryHeap();
  private gtdResting = 0;
  private out: MatchEvent[] = [];

  constructor(config: OrderBookConfig) {
    if (config.tickSize <= 0n) throw new RangeError('tickSize must be positive');
    const step = config.qtyStep ?? 1n;
    if (step <= 0n) throw new RangeError('qtyStep must be positive');
    this.symbol = config.symbol ?? '';
    this.tickSize = config.tickSize;
    this.qtyStep = step;
    this.scale = notionalScale(config.baseScale, config.quoteScale);
    this.matchSeq = config.nextMatchId ?? 1n;
    this.prioSeq = config.nextPrioritySeq ?? 1n;
    if (this.matchSeq < 1n || this.prioSeq < 1n) throw new RangeError('sequence seeds must be >= 1');
  }

  /** matchId the next trade gets (persist `nextMatchId - 1n` as the last one). */
  get nextMatchId(): bigint {
    return this.matchSeq;
  }

  /** prioritySeq the next resting order gets. */
  get nextPrioritySeq(): bigint {
    return this.prioSeq;
  }

  /** Number of resting orders. */
  get size(): number {
    return this.index.size;
  }

  // ---------------------------------------------------------------------------------
  // Commands
  // ---------------------------------------------------------------------------------

  /** Places a new order at time `nowNs`. */
  place(order: PlaceOrder, nowNs: bigint): MatchEvent[] {
    const out: MatchEvent[] = [];
    this.out = out;
    const reason = this.validatePlace(order);
    if (reason !== null) {
      out.push({ type: 'rejected', command: 'place', orderId: order.orderId, reason });
      return out;
    }
    out.push({ type: 'accepted', orderId: order.orderId, order });
    const isBuy = order.side === 'BUY';
    const isMarket = order.type === 'MARKET';
    const node = new OrderNode(
      order.orderId,
      order.accountId,
      order.side,
      isBuy,
      order.price ?? 0n,
      order.qty,
      order.tif,
      order.postOnly === true,
      order.stpMode ?? 'EXPIRE_MAKER',
      order.expireAtNs ?? null,
    );
    if (node.expireAtNs !== null && node.expireAtNs <= nowNs) {
      this.emitCancel(node, 'EXPIRED', node.remaining, false);
      return out;
    }
    const stop = this.match(node, !isMarket || order.price !== undefined, order.maxQuoteNotional ?? null, nowNs);
    if (stop !== DONE) {
      if (order.tif !== 'IOC') {
        this.rest(node, true);
      } else {
        const why: CancelReason = !isMarket ? 'IOC_REMAINDER' : stop === STOP_EMPTY ? 'MARKET_NO_LIQUIDITY' : 'PRICE_PROTECTION';
        this.emitCancel(node, why, node.remaining, false);
      }
    }
    return out;
  }

  /** Cancels a resting order (reason USER). */
  cancel(orderId: OrderId): MatchEvent[] {
    const out: MatchEvent[] = [];
    this.out = out;
    const node = this.index.get(orderId);
    if (node === undefined) {
      out.push({ type: 'rejected', command: 'cancel', orderId, reason: codes.ORDER_NOT_FOUND });
      return out;
    }
    this.removeResting(node);
    this.emitCancel(node, 'USER', node.remaining, true);
    return out;
  }

  /**
   * Changes a resting order's remaining quantity and/or price at time `nowNs`. A pure
   * quantity decrease (or no change) keeps time priority; a quantity increase or a price
   * change re-enters the order at the back of its new level, matching first if it crosses.
   */
  modify(orderId: OrderId, change: ModifyOrder, nowNs: bigint): MatchEvent[] {
    const out: MatchEvent[] = [];
    this.out = out;
    const node = this.index.get(orderId);
    const { newQty, newPrice } = change;
    let reason: RejectReason | null = null;
    if (node === undefined) reason = codes.ORDER_NOT_FOUND;
    else if (newQty === undefined && newPrice === undefined) reason = codes.INVALID_MODIFY;
    else if (newQty !== undefined && newQty <= 0n) reason = codes.INVALID_QTY;
    else if (newQty !== undefined && newQty % this.qtyStep !== 0n) reason = codes.INVALID_QTY_STEP;
    else if (newPrice !== undefined && newPrice <= 0n) reason = codes.INVALID_PRICE;
    else if (newPrice !== undefined && newPrice % this.tickSize !== 0n) reason = codes.INVALID_TICK;
    if (reason !== null || node === undefined) {
      out.push({ type: 'rejected', command: 'modify', orderId, reason: reason ?? codes.ORDER_NOT_FOUND });
      return out;
    }
    if (node.expireAtNs !== null && node.expireAtNs <= nowNs) {
      this.removeResting(node);
      this.emitCancel(node, 'EXPIRED', node.remaining, true);
      out.push({ type: 'rejected', command: 'modify', orderId, reason: 'ORDER_EXPIRED' });
      return out;
    }
    const oldPrice = node.price;
    const oldQty = node.remaining;
    const price = newPrice ?? oldPrice;
    const qty = newQty ?? oldQty;
    if (price === oldPrice && qty <= oldQty) {
      if (qty !== oldQty) {
        node.level!.total -= oldQty - qty;
        node.remaining = qty;
      }
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
    if (node.postOnly && price !== oldPrice && this.sweepWouldTake(node.isBuy, price, nowNs)) {
      out.push({ type: 'rejected', command: 'modify', orderId, reason: codes.POST_ONLY_WOULD_TAKE });
      return out;
    }
    node.level!.total -= oldQty;
    (node.isBuy ? this.bids : this.asks).unlink(node);
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
    if (this.match(node, true, null, nowNs) === DONE) {
      this.index.delete(orderId);
      if (node.expireAtNs !== null) this.gtdResting--;
    } else {
      this.rest(node, false);
    }
    return out;
  }

  /**
   * Expires every resting GTD order with expireAtNs <= nowNs, in (expireAtNs,
   * prioritySeq) order. Returns their `canceled` (EXPIRED) events.
   */
  expireDue(nowNs: bigint): MatchEvent[] {
    const out: MatchEvent[] = [];
    this.out = out;
    const heap = this.expiries;
    for (;;) {
      const top = heap.peek();
      if (top === undefined || top.at > nowNs) break;
      heap.pop();
      if (!isLive(top)) continue;
      const node = top.node;
      this.removeResting(node);
      this.emitCancel(node, 'EXPIRED', node.remaining, true);
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
      if (this.index.has(o.orderId)) throw new Error(`${where}: duplicate order id`);
      if (o.side !== 'BUY' && o.side !== 'SELL') throw new Error(`${where}: bad side`);
      if (o.tif !== 'GTC' && o.tif !== 'GTD') throw new Error(`${where}: bad tif`);
      if ((o.tif === 'GTD') !== (o.expireAtNs !== undefined)) throw new Error(`${where}: expireAtNs iff GTD`);
      if (!STP_MODES.has(o.stpMode)) throw new Error(`${where}: bad stpMode`);
      if (o.price <= 0n || o.price % this.tickSize !== 0n) throw new Error(`${where}: bad price`);
      if (o.qty <= 0n || o.qty % this.qtyStep !== 0n) throw new Error(`${where}: bad qty`);
      if (o.prioritySeq <= lastSeq) throw new Error(`${where}: prioritySeq not increasing`);
      lastSeq = o.prioritySeq;
      const isBuy = o.side === 'BUY';
      const opposite = (isBuy ? this.asks : this.bids).best();
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
      node.prioritySeq = o.prioritySeq;
      (isBuy ? this.bids : this.asks).add(node);
      this.index.set(o.orderId, node);
      if (node.expireAtNs !== null) {
        this.gtdResting++;
        this.expiries.push({ at: node.expireAtNs, seq: node.prioritySeq, node });
      }
      if (o.prioritySeq >= this.prioSeq) this.prioSeq = o.prioritySeq + 1n;
    }
  }

  // ---------------------------------------------------------------------------------
  // Reads (no time: expired-but-not-yet-swept GTD orders are included; call expireDue first)
  // ---------------------------------------------------------------------------------

  bestBid(): bigint | null {
    return this.bids.best()?.price ?? null;
  }

  bestAsk(): bigint | null {
    return this.asks.best()?.price ?? null;
  }

  /** Aggregated levels, best first, at most `levels` per side. */
  depth(levels = Number.MAX_SAFE_INTEGER): Depth {
    return { bids: this.bids.depth(levels), asks: this.asks.depth(levels) };
  }

  /** Why `place` would reject this order, or null: lets a caller refuse it before changing anything. */
  validate(order: PlaceOrder): PlaceRejectReason | null {
    return this.validatePlace(order);
  }

  /**
   * Whether an order at `price` on the given side would take: some unexpired resting order
   * on the other side is at that price or better. Changes nothing, so a caller can refuse
   * a post-only order before it reserves anything.
   */
  wouldTake(side: Side, price: bigint, nowNs: bigint): boolean {
    const isBuy = side === 'BUY';
    const chunks = (isBuy ? this.asks : this.bids).chunks;
    for (let c = chunks.length - 1; c >= 0; c--) {
      const chunk = chunks[c]!;
      for (let i = chunk.length - 1; i >= 0; i--) {
        const level = chunk[i]!;
        if (isBuy ? level.price > price : level.price < price) return false;
        for (let m = level.head; m !== null; m = m.next) if (m.expireAtNs === null || m.expireAtNs > nowNs) return true;
      }
    }
    return false;
  }

  openOrder(orderId: OrderId): RestingOrder | undefined {
    const node = this.index.get(orderId);
    return node === undefined ? undefined : view(node);
  }

  /** Every resting order per side in priority order (best price first, then prioritySeq). */
  snapshot(): { bids: RestingOrder[]; asks: RestingOrder[] } {
    return { bids: sideView(this.bids), asks: sideView(this.asks) };
  }

  /** Every resting order sorted by prioritySeq: the input `restore` expects. */
  restingOrders(): RestingOrder[] {
    const all = [...sideView(this.bids), ...sideView(this.asks)];
    return all.sort((a, b) => (a.prioritySeq < b.prioritySeq ? -1 : a.prioritySeq > b.prioritySeq ? 1 : 0));
  }

  // ---------------------------------------------------------------------------------
  // Internals
  // ---------------------------------------------------------------------------------

  private validatePlace(o: PlaceOrder): PlaceRejectReason | null {
    if (this.index.has(o.orderId)) return codes.DUPLICATE_ORDER_ID;
    if (o.side !== 'BUY' && o.side !== 'SELL') return codes.INVALID_SIDE;
    if (o.type === 'LIMIT') {
      if (o.tif !== 'GTC' && o.tif !== 'GTD' && o.tif !== 'IOC') return codes.INVALID_ORDER_TYPE;
      if (o.postOnly === true && o.tif === 'IOC') return codes.INVALID_ORDER_TYPE;
    } else if (o.type === 'MARKET') {
      if (o.tif !== 'IOC' || o.postOnly === true) return codes.INVALID_ORDER_TYPE;
    } else {
      return codes.INVALID_ORDER_TYPE;
    }
    if (o.stpMode !== undefined && !STP_MODES.has(o.stpMode)) return codes.INVALID_STP_MODE;
    if (typeof o.qty !== 'bigint' || o.qty <= 0n) return codes.INVALID_QTY;
    if (o.qty % this.qtyStep !== 0n) return codes.INVALID_QTY_STEP;
    if (o.type === 'LIMIT') {
      if (typeof o.price !== 'bigint' || o.price <= 0n) return codes.INVALID_PRICE;
      if (o.price % this.tickSize !== 0n) return codes.INVALID_TICK;
    } else if (o.price !== undefined && (typeof o.price !== 'bigint' || o.price <= 0n)) {
      return codes.INVALID_PRICE;
    }
    if ((o.tif === 'GTD') !== (o.expireAtNs !== undefined)) return codes.INVALID_EXPIRY;
    if (o.maxQuoteNotional !== undefined) {
      if (o.side !== 'BUY' || o.tif !== 'IOC' || typeof o.maxQuoteNotional !== 'bigint' || o.maxQuoteNotional <= 0n) {
        return codes.INVALID_NOTIONAL_CAP;
      }
    }
    return null;
  }

  /**
   * Walks the opposite side in priority order while it crosses the taker's limit.
   * Meets, per maker: expired GTD -> expire it; post-only taker -> cancel the taker;
   * same account -> STP by the taker's mode; else trade at the maker's price (bounded by
   * the notional cap). Returns DONE when the taker is filled or terminated here.
   */
  private match(t: OrderNode, limited: boolean, cap: bigint | null, nowNs: bigint): number {
    const isBuy = t.isBuy;
    const opp = isBuy ? this.asks : this.bids;
    const limit = t.price;
    const out = this.out;
    for (;;) {
      const level = opp.best();
      if (level === undefined) return STOP_EMPTY;
      const price = level.price;
      if (limited && (isBuy ? price > limit : price < limit)) return STOP_PRICE;
      const m = level.head!;
      if (m.expireAtNs !== null && m.expireAtNs <= nowNs) {
        this.removeResting(m);
        this.emitCancel(m, 'EXPIRED', m.remaining, true);
        continue;
      }
      if (t.postOnly) {
        this.emitCancel(t, 'POST_ONLY', t.remaining, false);
        return DONE;
      }
      if (m.accountId === t.accountId) {
        switch (t.stpMode) {
          case 'EXPIRE_TAKER':
            this.emitCancel(t, 'STP', t.remaining, false);
            return DONE;
          case 'EXPIRE_MAKER':
            this.removeResting(m);
            this.emitCancel(m, 'STP', m.remaining, true);
            continue;
          case 'EXPIRE_BOTH':
            this.removeResting(m);
            this.emitCancel(m, 'STP', m.remaining, true);
            this.emitCancel(t, 'STP', t.remaining, false);
            return DONE;
          case 'DECREMENT': {
            const d = t.remaining < m.remaining ? t.remaining : m.remaining;
            if (m.remaining === d) {
              this.removeResting(m);
              this.emitCancel(m, 'STP', d, true);
            } else {
              m.remaining -= d;
              level.total -= d;
              out.push(decremented(m, d, true));
            }
            if (t.remaining === d) {
              t.remaining = 0n;
              this.emitCancel(t, 'STP', d, false);
              return DONE;
            }
            t.remaining -= d;
            out.push(decremented(t, d, false));
            continue;
          }
        }
      }
      let qty = t.remaining < m.remaining ? t.remaining : m.remaining;
      if (cap !== null) {
        const afford = maxQtyForBudget(price, cap, this.qtyStep, this.scale);
        if (afford < qty) {
          if (afford === 0n) {
            this.emitCancel(t, 'NOTIONAL_CAP', t.remaining, false);
            return DONE;
          }
          qty = afford;
        }
        cap -= quoteNotional(price, qty, this.scale);
      }
      const matchId = this.matchSeq++;
      const takerRemaining = t.remaining - qty;
      t.remaining = takerRemaining;
      if (m.remaining === qty) {
        m.remaining = 0n;
        level.total -= qty;
        this.index.delete(m.id);
        if (m.expireAtNs !== null) this.gtdResting--;
        opp.unlink(m);
      } else {
        m.remaining -= qty;
        level.total -= qty;
      }
      out.push({
        type: 'trade',
        matchId,
        price,
        qty,
        makerOrderId: m.id,
        takerOrderId: t.id,
        makerAccountId: m.accountId,
        takerAccountId: t.accountId,
        takerSide: t.side,
        makerRemaining: m.remaining,
        takerRemaining,
      });
      if (takerRemaining === 0n) return DONE;
    }
  }

  /**
   * Post-only probe for a price modify: walks the opposite side as match() would,
   * expiring expired makers, and answers whether a live maker crosses `price`.
   */
  /** wouldTake for a modify: expires the stale makers it meets on the way, as matching would. */
  private sweepWouldTake(isBuy: boolean, price: bigint, nowNs: bigint): boolean {
    const opp = isBuy ? this.asks : this.bids;
    for (;;) {
      const level = opp.best();
      if (level === undefined || (isBuy ? level.price > price : level.price < price)) return false;
      const m = level.head!;
      if (m.expireAtNs !== null && m.expireAtNs <= nowNs) {
        this.removeResting(m);
        this.emitCancel(m, 'EXPIRED', m.remaining, true);
        continue;
      }
      return true;
    }
  }

  /** Puts `node` on the book with a fresh prioritySeq. */
  private rest(node: OrderNode, isNew: boolean): void {
    const seq = this.prioSeq++;
    node.prioritySeq = seq;
    (node.isBuy ? this.bids : this.asks).add(node);
    if (isNew) {
      this.index.set(node.id, node);
      if (node.expireAtNs !== null) this.gtdResting++;
    }
    if (node.expireAtNs !== null) {
      this.expiries.push({ at: node.expireAtNs, seq, node });
      if (this.expiries.items.length > 2 * this.gtdResting + 64) this.expiries.compact(isLive);
    }
    this.out.push({
      type: 'rested',
      orderId: node.id,
      accountId: node.accountId,
      side: node.side,
      price: node.price,
      qty: node.remaining,
      prioritySeq: seq,
    });
  }

  /** Takes a resting order off the book and out of the index (its remaining is kept). */
  private removeResting(node: OrderNode): void {
    node.level!.total -= node.remaining;
    (node.isBuy ? this.bids : this.asks).unlink(node);
    this.index.delete(node.id);
    if (node.expireAtNs !== null) this.gtdResting--;
  }

  private emitCancel(node: OrderNode, reason: CancelReason, remaining: bigint, wasResting: boolean): void {
    this.out.push({
      type: 'canceled',
      orderId: node.id,
      accountId: node.accountId,
      side: node.side,
      price: node.price,
      reason,
      remaining,
      wasResting,
    });
  }
}

function decremented(node: OrderNode, qty: bigint, wasResting: boolean): MatchEvent {
  return {
    type: 'decremented',
    orderId: node.id,
    accountId: node.accountId,
    side: node.side,
    price: node.price,
    reason: 'STP',
    qty,
    remaining: node.remaining,
    wasResting,
  };
}

function view(node: OrderNode): RestingOrder {
  const o: RestingOrder = {
    orderId: node.id,
    accountId: node.accountId,
    side: node.side,
    tif: node.tif === 'GTD' ? 'GTD' : 'GTC',
    price: node.price,
    qty: node.remaining,
    prioritySeq: node.prioritySeq,
    postOnly: node.postOnly,
    stpMode: node.stpMode,
  };
  if (node.expireAtNs !== null) o.expireAtNs = node.expireAtNs;
  return o;
}

function sideView(side: BookSide): RestingOrder[] {
  const out: RestingOrder[] = [];
  for (const level of side.bestFirst()) {
    for (let n = level.head; n !== null; n = n.next) out.push(view(n));
  }
  return out;
}

/** Factory alias of `new OrderBook(config)`. */
export function createMatchingEngine(config: OrderBookConfig): OrderBook {
  return new OrderBook(config);
}
