import type {
  CancelReason,
  Depth,
  MatchEvent,
  ModifyOrder,
  OrderBookConfig,
  OrderId,
  PlaceOrder,
  RejectReason,
  RestingOrder,
  Side,
  StpMode,
} from '../../../src/domain/matching/index.ts';

/**
 * A deliberately naive engine implementing docs/matching.md, for differential testing:
 * the resting orders are one flat array, and every step that needs "the best maker"
 * filters and sorts it again. No indexes, no linked lists, no heaps, no cleverness.
 */

interface RefOrder {
  orderId: OrderId;
  accountId: string | number | bigint;
  side: Side;
  tif: 'GTC' | 'GTD' | 'IOC';
  price: bigint;
  qty: bigint;
  prioritySeq: bigint;
  postOnly: boolean;
  stpMode: StpMode;
  expireAtNs: bigint | undefined;
}

const pow10 = (n: number) => 10n ** BigInt(n);

export class ReferenceEngine {
  private book: RefOrder[] = [];
  private matchId: bigint;
  private seq: bigint;

  constructor(private readonly config: OrderBookConfig) {
    this.matchId = config.nextMatchId ?? 1n;
    this.seq = config.nextPrioritySeq ?? 1n;
  }

  private get step(): bigint {
    return this.config.qtyStep ?? 1n;
  }

  /** Makers of the side opposite to `takerSide`, best first. */
  private makersFor(takerSide: Side): RefOrder[] {
    const makerSide: Side = takerSide === 'BUY' ? 'SELL' : 'BUY';
    return this.sorted(makerSide);
  }

  private sorted(side: Side): RefOrder[] {
    return this.book
      .filter((o) => o.side === side)
      .sort((a, b) => {
        if (a.price !== b.price) {
          const aBetter = side === 'BUY' ? a.price > b.price : a.price < b.price;
          return aBetter ? -1 : 1;
        }
        return a.prioritySeq < b.prioritySeq ? -1 : 1;
      });
  }

  private remove(o: RefOrder): void {
    this.book = this.book.filter((x) => x !== o);
  }

  private find(id: OrderId): RefOrder | undefined {
    return this.book.find((o) => o.orderId === id);
  }

  private canceled(o: RefOrder, reason: CancelReason, remaining: bigint, wasResting: boolean): MatchEvent {
    return {
      type: 'canceled',
      orderId: o.orderId,
      accountId: o.accountId,
      side: o.side,
      price: o.price,
      reason,
      remaining,
      wasResting,
    };
  }

  private validate(o: PlaceOrder): RejectReason | null {
    if (this.find(o.orderId)) return 'DUPLICATE_ORDER_ID';
    if (o.side !== 'BUY' && o.side !== 'SELL') return 'INVALID_SIDE';
    const kinds = ['LIMIT/GTC', 'LIMIT/GTD', 'LIMIT/IOC', 'MARKET/IOC'];
    if (!kinds.includes(`${o.type}/${o.tif}`)) return 'INVALID_ORDER_TYPE';
    if (o.postOnly === true && o.tif === 'IOC') return 'INVALID_ORDER_TYPE';
    if (o.stpMode !== undefined && !['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT'].includes(o.stpMode)) {
      return 'INVALID_STP_MODE';
    }
    if (!(o.qty > 0n)) return 'INVALID_QTY';
    if (o.qty % this.step !== 0n) return 'INVALID_QTY_STEP';
    if (o.type === 'LIMIT') {
      if (o.price === undefined || o.price <= 0n) return 'INVALID_PRICE';
      if (o.price % this.config.tickSize !== 0n) return 'INVALID_TICK';
    } else if (o.price !== undefined && o.price <= 0n) {
      return 'INVALID_PRICE';
    }
    if (o.tif === 'GTD' && o.expireAtNs === undefined) return 'INVALID_EXPIRY';
    if (o.tif !== 'GTD' && o.expireAtNs !== undefined) return 'INVALID_EXPIRY';
    if (o.maxQuoteNotional !== undefined && (o.side !== 'BUY' || o.tif !== 'IOC' || o.maxQuoteNotional <= 0n)) {
      return 'INVALID_NOTIONAL_CAP';
    }
    return null;
  }

  /** Exact: largest q with ceil(price*q*10^qs / 10^(9+bs)) <= budget, a multiple of step. */
  private affordable(price: bigint, budget: bigint): bigint {
    const num = budget * pow10(9 + this.config.baseScale);
    const den = price * pow10(this.config.quoteScale);
    const q = num / den;
    return q - (q % this.step);
  }

  notional(price: bigint, qty: bigint): bigint {
    const num = price * qty * pow10(this.config.quoteScale);
    const den = pow10(9 + this.config.baseScale);
    return num % den === 0n ? num / den : num / den + 1n;
  }

  /**
   * The taker walks the book. Returns 'done' when the taker ended (filled or canceled),
   * else why it stopped with quantity left.
   */
  private take(
    t: RefOrder,
    limit: bigint | undefined,
    cap: bigint | undefined,
    now: bigint,
    ev: MatchEvent[],
  ): 'done' | 'empty' | 'price' {
    let budget = cap;
    while (t.qty > 0n) {
      const m = this.makersFor(t.side)[0];
      if (m === undefined) return 'empty';
      if (limit !== undefined) {
        const crosses = t.side === 'BUY' ? m.price <= limit : m.price >= limit;
        if (!crosses) return 'price';
      }
      if (m.expireAtNs !== undefined && now >= m.expireAtNs) {
        this.remove(m);
        ev.push(this.canceled(m, 'EXPIRED', m.qty, true));
        continue;
      }
      if (t.postOnly) {
        ev.push(this.canceled(t, 'POST_ONLY', t.qty, false));
        return 'done';
      }
      if (m.accountId === t.accountId) {
        if (t.stpMode === 'EXPIRE_TAKER') {
          ev.push(this.canceled(t, 'STP', t.qty, false));
          return 'done';
        }
        if (t.stpMode === 'EXPIRE_MAKER') {
          this.remove(m);
          ev.push(this.canceled(m, 'STP', m.qty, true));
          continue;
        }
        if (t.stpMode === 'EXPIRE_BOTH') {
          this.remove(m);
          ev.push(this.canceled(m, 'STP', m.qty, true));
          ev.push(this.canceled(t, 'STP', t.qty, false));
          return 'done';
        }
        // DECREMENT
        const d = t.qty < m.qty ? t.qty : m.qty;
        const makerLeft = m.qty - d;
        const takerLeft = t.qty - d;
        if (makerLeft === 0n) {
          this.remove(m);
          ev.push(this.canceled(m, 'STP', d, true));
        } else {
          m.qty = makerLeft;
          ev.push({ type: 'decremented', orderId: m.orderId, accountId: m.accountId, side: m.side, price: m.price, reason: 'STP', qty: d, remaining: makerLeft, wasResting: true });
        }
        if (takerLeft === 0n) {
          ev.push(this.canceled(t, 'STP', d, false));
          t.qty = 0n;
          return 'done';
        }
        t.qty = takerLeft;
        ev.push({ type: 'decremented', orderId: t.orderId, accountId: t.accountId, side: t.side, price: t.price, reason: 'STP', qty: d, remaining: takerLeft, wasResting: false });
        continue;
      }
      let qty = t.qty < m.qty ? t.qty : m.qty;
      if (budget !== undefined) {
        const can = this.affordable(m.price, budget);
        if (can === 0n) {
          ev.push(this.canceled(t, 'NOTIONAL_CAP', t.qty, false));
          return 'done';
        }
        if (can < qty) qty = can;
        const spent = this.notional(m.price, qty);
        if (spent > budget) throw new Error('reference: cap arithmetic is wrong');
        budget -= spent;
      }
      t.qty -= qty;
      m.qty -= qty;
      if (m.qty === 0n) this.remove(m);
      ev.push({
        type: 'trade',
        matchId: this.matchId++,
        price: m.price,
        qty,
        makerOrderId: m.orderId,
        takerOrderId: t.orderId,
        makerAccountId: m.accountId,
        takerAccountId: t.accountId,
        takerSide: t.side,
        makerRemaining: m.qty,
        takerRemaining: t.qty,
      });
    }
    return 'done';
  }

  private rest(o: RefOrder, ev: MatchEvent[]): void {
    o.prioritySeq = this.seq++;
    this.book.push(o);
    ev.push({ type: 'rested', orderId: o.orderId, accountId: o.accountId, side: o.side, price: o.price, qty: o.qty, prioritySeq: o.prioritySeq });
  }

  place(o: PlaceOrder, now: bigint): MatchEvent[] {
    const reason = this.validate(o);
    if (reason !== null) return [{ type: 'rejected', command: 'place', orderId: o.orderId, reason }];
    const ev: MatchEvent[] = [{ type: 'accepted', orderId: o.orderId, order: o }];
    const t: RefOrder = {
      orderId: o.orderId,
      accountId: o.accountId,
      side: o.side,
      tif: o.tif,
      price: o.price ?? 0n,
      qty: o.qty,
      prioritySeq: 0n,
      postOnly: o.postOnly ?? false,
      stpMode: o.stpMode ?? 'EXPIRE_MAKER',
      expireAtNs: o.expireAtNs,
    };
    if (t.expireAtNs !== undefined && now >= t.expireAtNs) {
      ev.push(this.canceled(t, 'EXPIRED', t.qty, false));
      return ev;
    }
    const stop = this.take(t, o.price, o.maxQuoteNotional, now, ev);
    if (stop === 'done') return ev;
    if (o.tif === 'IOC') {
      let why: CancelReason = 'IOC_REMAINDER';
      if (o.type === 'MARKET') why = stop === 'empty' ? 'MARKET_NO_LIQUIDITY' : 'PRICE_PROTECTION';
      ev.push(this.canceled(t, why, t.qty, false));
    } else {
      this.rest(t, ev);
    }
    return ev;
  }

  cancel(id: OrderId): MatchEvent[] {
    const o = this.find(id);
    if (!o) return [{ type: 'rejected', command: 'cancel', orderId: id, reason: 'ORDER_NOT_FOUND' }];
    this.remove(o);
    return [this.canceled(o, 'USER', o.qty, true)];
  }

  modify(id: OrderId, change: ModifyOrder, now: bigint): MatchEvent[] {
    const o = this.find(id);
    const reject = (reason: RejectReason): MatchEvent => ({ type: 'rejected', command: 'modify', orderId: id, reason });
    if (!o) return [reject('ORDER_NOT_FOUND')];
    const { newQty, newPrice } = change;
    if (newQty === undefined && newPrice === undefined) return [reject('INVALID_MODIFY')];
    if (newQty !== undefined && newQty <= 0n) return [reject('INVALID_QTY')];
    if (newQty !== undefined && newQty % this.step !== 0n) return [reject('INVALID_QTY_STEP')];
    if (newPrice !== undefined && newPrice <= 0n) return [reject('INVALID_PRICE')];
    if (newPrice !== undefined && newPrice % this.config.tickSize !== 0n) return [reject('INVALID_TICK')];
    if (o.expireAtNs !== undefined && now >= o.expireAtNs) {
      this.remove(o);
      return [this.canceled(o, 'EXPIRED', o.qty, true), reject('ORDER_EXPIRED')];
    }
    const price = newPrice ?? o.price;
    const qty = newQty ?? o.qty;
    const base = { type: 'modified' as const, orderId: id, accountId: o.accountId, side: o.side, oldPrice: o.price, oldQty: o.qty, price, qty };
    if (price === o.price && qty <= o.qty) {
      o.qty = qty;
      return [{ ...base, priorityKept: true }];
    }
    const ev: MatchEvent[] = [];
    if (o.postOnly && price !== o.price) {
      // Probe: expire expired makers in the way; reject if a live maker crosses.
      for (;;) {
        const m = this.makersFor(o.side)[0];
        const crosses = m !== undefined && (o.side === 'BUY' ? m.price <= price : m.price >= price);
        if (!crosses) break;
        if (m.expireAtNs !== undefined && now >= m.expireAtNs) {
          this.remove(m);
          ev.push(this.canceled(m, 'EXPIRED', m.qty, true));
          continue;
        }
        ev.push(reject('POST_ONLY_WOULD_TAKE'));
        return ev;
      }
    }
    this.remove(o);
    ev.push({ ...base, priorityKept: false });
    o.price = price;
    o.qty = qty;
    const stop = this.take(o, price, undefined, now, ev);
    if (stop !== 'done') this.rest(o, ev);
    return ev;
  }

  expireDue(now: bigint): MatchEvent[] {
    const due = this.book
      .filter((o) => o.expireAtNs !== undefined && now >= o.expireAtNs)
      .sort((a, b) => {
        if (a.expireAtNs! !== b.expireAtNs!) return a.expireAtNs! < b.expireAtNs! ? -1 : 1;
        return a.prioritySeq < b.prioritySeq ? -1 : 1;
      });
    return due.map((o) => {
      this.remove(o);
      return this.canceled(o, 'EXPIRED', o.qty, true);
    });
  }

  private view(o: RefOrder): RestingOrder {
    const v: RestingOrder = {
      orderId: o.orderId,
      accountId: o.accountId,
      side: o.side,
      tif: o.tif === 'GTD' ? 'GTD' : 'GTC',
      price: o.price,
      qty: o.qty,
      prioritySeq: o.prioritySeq,
      postOnly: o.postOnly,
      stpMode: o.stpMode,
    };
    if (o.expireAtNs !== undefined) v.expireAtNs = o.expireAtNs;
    return v;
  }

  snapshot(): { bids: RestingOrder[]; asks: RestingOrder[] } {
    return { bids: this.sorted('BUY').map((o) => this.view(o)), asks: this.sorted('SELL').map((o) => this.view(o)) };
  }

  openOrder(id: OrderId): RestingOrder | undefined {
    const o = this.find(id);
    return o && this.view(o);
  }

  depth(): Depth {
    const agg = (orders: RefOrder[]) => {
      const out: { price: bigint; qty: bigint; orders: number }[] = [];
      for (const o of orders) {
        const last = out[out.length - 1];
        if (last && last.price === o.price) {
          last.qty += o.qty;
          last.orders++;
        } else {
          out.push({ price: o.price, qty: o.qty, orders: 1 });
        }
      }
      return out;
    };
    return { bids: agg(this.sorted('BUY')), asks: agg(this.sorted('SELL')) };
  }

  get nextMatchId(): bigint {
    return this.matchId;
  }

  get nextPrioritySeq(): bigint {
    return this.seq;
  }
}
