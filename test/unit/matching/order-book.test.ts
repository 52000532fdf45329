import { describe, expect, it } from 'vitest';
import {
  OrderBook,
  createMatchingEngine,
  maxQtyForBudget,
  notionalScale,
  quoteNotional,
  type MatchEvent,
  type PlaceOrder,
  type StpMode,
} from '../../../src/domain/matching/index.ts';

/** Hand-written books: each order kind, each STP mode, modify rules, expiry, restore. */

const T = 1_000_000_000n; // one quote unit in Q9; tick size of these books
const P = (n: number) => BigInt(n) * T;
const NOW = 1_000n;

function book(seed: { nextMatchId?: bigint; nextPrioritySeq?: bigint } = {}): OrderBook {
  return new OrderBook({ symbol: 'T-Q', tickSize: T, baseScale: 0, quoteScale: 0, ...seed });
}

function gtc(orderId: string, accountId: string | bigint, side: 'BUY' | 'SELL', price: number, qty: number, extra: Partial<PlaceOrder> = {}): PlaceOrder {
  return { orderId, accountId, side, type: 'LIMIT', tif: 'GTC', price: P(price), qty: BigInt(qty), ...extra };
}

/** Compact event notation for readable expectations. */
function brief(events: MatchEvent[]): string[] {
  return events.map((e) => {
    switch (e.type) {
      case 'accepted':
        return `accepted ${String(e.orderId)}`;
      case 'trade':
        return `trade #${e.matchId} ${String(e.makerOrderId)}<-${String(e.takerOrderId)} ${e.qty}@${e.price / T} m=${e.makerRemaining} t=${e.takerRemaining}`;
      case 'canceled':
        return `canceled ${String(e.orderId)} ${e.reason} ${e.remaining}${e.wasResting ? ' resting' : ''}`;
      case 'decremented':
        return `decremented ${String(e.orderId)} -${e.qty} =${e.remaining}`;
      case 'rested':
        return `rested ${String(e.orderId)} ${e.qty}@${e.price / T} seq=${e.prioritySeq}`;
      case 'modified':
        return `modified ${String(e.orderId)} ${e.oldQty}@${e.oldPrice / T} -> ${e.qty}@${e.price / T}${e.priorityKept ? ' kept' : ' lost'}`;
      case 'rejected':
        return `rejected ${e.command} ${String(e.orderId)} ${e.reason}`;
    }
  });
}

/** Book with asks 10@101 (s1), 5@101 (s2), 7@102 (s3) and bids 4@99 (b1), 6@98 (b2). */
function standard(): OrderBook {
  const b = book();
  b.place(gtc('s1', 'A', 'SELL', 101, 10), NOW);
  b.place(gtc('s2', 'B', 'SELL', 101, 5), NOW);
  b.place(gtc('s3', 'C', 'SELL', 102, 7), NOW);
  b.place(gtc('b1', 'D', 'BUY', 99, 4), NOW);
  b.place(gtc('b2', 'E', 'BUY', 98, 6), NOW);
  return b;
}

describe('matching: construction and validation', () => {
  it('rejects bad configuration', () => {
    expect(() => book({ nextMatchId: 0n })).toThrow(RangeError);
    expect(() => new OrderBook({ tickSize: 0n, baseScale: 0, quoteScale: 0 })).toThrow(RangeError);
    expect(() => new OrderBook({ tickSize: 1n, qtyStep: 0n, baseScale: 0, quoteScale: 0 })).toThrow(RangeError);
    expect(() => new OrderBook({ tickSize: 1n, baseScale: -1, quoteScale: 0 })).toThrow(RangeError);
    expect(createMatchingEngine({ tickSize: 1n, baseScale: 0, quoteScale: 0 })).toBeInstanceOf(OrderBook);
  });

  it('returns rejected events with stable reasons and changes nothing', () => {
    const b = new OrderBook({ tickSize: T, qtyStep: 5n, baseScale: 0, quoteScale: 0 });
    b.place(gtc('x', 'A', 'SELL', 100, 5), NOW);
    const base = { orderId: 'n', accountId: 'A', side: 'BUY', type: 'LIMIT', tif: 'GTC', price: P(99), qty: 5n } as PlaceOrder;
    const cases: [Partial<PlaceOrder> | Record<string, unknown>, string][] = [
      [{ orderId: 'x' }, 'DUPLICATE_ORDER_ID'],
      [{ side: 'HOLD' }, 'INVALID_SIDE'],
      [{ type: 'STOP' }, 'INVALID_ORDER_TYPE'],
      [{ tif: 'FOK' }, 'INVALID_ORDER_TYPE'],
      [{ type: 'MARKET', tif: 'GTC' }, 'INVALID_ORDER_TYPE'],
      [{ type: 'MARKET', tif: 'IOC', postOnly: true }, 'INVALID_ORDER_TYPE'],
      [{ tif: 'IOC', postOnly: true }, 'INVALID_ORDER_TYPE'],
      [{ stpMode: 'NONE' }, 'INVALID_STP_MODE'],
      [{ qty: 0n }, 'INVALID_QTY'],
      [{ qty: -5n }, 'INVALID_QTY'],
      [{ qty: 7n }, 'INVALID_QTY_STEP'],
      [{ price: undefined }, 'INVALID_PRICE'],
      [{ price: 0n }, 'INVALID_PRICE'],
      [{ price: P(99) + 1n }, 'INVALID_TICK'],
      [{ type: 'MARKET', tif: 'IOC', price: -1n }, 'INVALID_PRICE'],
      [{ tif: 'GTD' }, 'INVALID_EXPIRY'],
      [{ expireAtNs: 5_000n }, 'INVALID_EXPIRY'],
      [{ maxQuoteNotional: 100n }, 'INVALID_NOTIONAL_CAP'],
      [{ tif: 'IOC', side: 'SELL', maxQuoteNotional: 100n }, 'INVALID_NOTIONAL_CAP'],
      [{ tif: 'IOC', maxQuoteNotional: 0n }, 'INVALID_NOTIONAL_CAP'],
    ];
    for (const [patch, reason] of cases) {
      const events = b.place({ ...base, ...patch } as PlaceOrder, NOW);
      expect(events, reason).toEqual([{ type: 'rejected', command: 'place', orderId: (patch as PlaceOrder).orderId ?? 'n', reason }]);
    }
    expect(b.size).toBe(1);
    expect(b.nextPrioritySeq).toBe(2n);
    expect(b.cancel('nope')).toEqual([{ type: 'rejected', command: 'cancel', orderId: 'nope', reason: 'ORDER_NOT_FOUND' }]);
    const mod = (change: object) => brief(b.modify('x', change, NOW));
    expect(brief(b.modify('nope', { newQty: 5n }, NOW))).toEqual(['rejected modify nope ORDER_NOT_FOUND']);
    expect(mod({})).toEqual(['rejected modify x INVALID_MODIFY']);
    expect(mod({ newQty: 0n })).toEqual(['rejected modify x INVALID_QTY']);
    expect(mod({ newQty: 6n })).toEqual(['rejected modify x INVALID_QTY_STEP']);
    expect(mod({ newPrice: 0n })).toEqual(['rejected modify x INVALID_PRICE']);
    expect(mod({ newPrice: P(100) + 3n })).toEqual(['rejected modify x INVALID_TICK']);
    expect(b.openOrder('x')).toMatchObject({ qty: 5n, price: P(100), prioritySeq: 1n });
  });
});

describe('matching: limit orders and price-time priority', () => {
  it('rests a non-crossing GTC order with a prioritySeq seeded from the constructor', () => {
    const b = book({ nextPrioritySeq: 41n, nextMatchId: 900n });
    expect(brief(b.place(gtc('b', 'A', 'BUY', 100, 3), NOW))).toEqual(['accepted b', 'rested b 3@100 seq=41']);
    expect(b.openOrder('b')).toEqual({
      orderId: 'b', accountId: 'A', side: 'BUY', tif: 'GTC', price: P(100), qty: 3n, prioritySeq: 41n, postOnly: false, stpMode: 'EXPIRE_MAKER',
    });
    expect(b.nextPrioritySeq).toBe(42n);
    expect(b.nextMatchId).toBe(900n);
  });

  it('sweeps levels best price first, FIFO within a level, at the maker price, and rests the rest', () => {
    const b = standard();
    expect(brief(b.place(gtc('t', 'Z', 'BUY', 102, 20), NOW))).toEqual([
      'accepted t',
      'trade #1 s1<-t 10@101 m=0 t=10',
      'trade #2 s2<-t 5@101 m=0 t=5',
      'trade #3 s3<-t 5@102 m=2 t=0',
    ]);
    expect(b.depth()).toEqual({
      bids: [{ price: P(99), qty: 4n, orders: 1 }, { price: P(98), qty: 6n, orders: 1 }],
      asks: [{ price: P(102), qty: 2n, orders: 1 }],
    });
    expect(brief(b.place(gtc('u', 'Z', 'BUY', 103, 5), NOW))).toEqual([
      'accepted u',
      'trade #4 s3<-u 2@102 m=0 t=3',
      'rested u 3@103 seq=6',
    ]);
    expect([b.bestBid(), b.bestAsk()]).toEqual([P(103), null]);
  });

  it('a sell taker walks bids downwards and stops at its limit', () => {
    const b = standard();
    b.place(gtc('b3', 'F', 'BUY', 99, 1), NOW);
    expect(brief(b.place(gtc('t', 'Z', 'SELL', 99, 9), NOW))).toEqual([
      'accepted t',
      'trade #1 b1<-t 4@99 m=0 t=5',
      'trade #2 b3<-t 1@99 m=0 t=4',
      'rested t 4@99 seq=7',
    ]);
    expect(b.depth(1)).toEqual({ bids: [{ price: P(98), qty: 6n, orders: 1 }], asks: [{ price: P(99), qty: 4n, orders: 1 }] });
  });

  it('limit IOC matches what it can and cancels the remainder', () => {
    const b = standard();
    expect(brief(b.place({ ...gtc('i', 'Z', 'BUY', 101, 20), tif: 'IOC' }, NOW))).toEqual([
      'accepted i',
      'trade #1 s1<-i 10@101 m=0 t=10',
      'trade #2 s2<-i 5@101 m=0 t=5',
      'canceled i IOC_REMAINDER 5',
    ]);
    expect(brief(b.place({ ...gtc('j', 'Z', 'BUY', 100, 1), tif: 'IOC' }, NOW))).toEqual(['accepted j', 'canceled j IOC_REMAINDER 1']);
    expect(b.openOrder('i')).toBeUndefined();
  });
});

describe('matching: market orders', () => {
  const market = (orderId: string, side: 'BUY' | 'SELL', qty: number, extra: Partial<PlaceOrder> = {}): PlaceOrder => ({
    orderId, accountId: 'Z', side, type: 'MARKET', tif: 'IOC', qty: BigInt(qty), ...extra,
  });

  it('without protection sweeps the side and cancels the rest as MARKET_NO_LIQUIDITY', () => {
    const b = standard();
    expect(brief(b.place(market('m', 'SELL', 12), NOW))).toEqual([
      'accepted m',
      'trade #1 b1<-m 4@99 m=0 t=8',
      'trade #2 b2<-m 6@98 m=0 t=2',
      'canceled m MARKET_NO_LIQUIDITY 2',
    ]);
    expect(brief(b.place(market('n', 'SELL', 1), NOW))).toEqual(['accepted n', 'canceled n MARKET_NO_LIQUIDITY 1']);
  });

  it('stops at the protection price (PRICE_PROTECTION) and never rests', () => {
    const b = standard();
    expect(brief(b.place(market('m', 'BUY', 30, { price: P(101) }), NOW))).toEqual([
      'accepted m',
      'trade #1 s1<-m 10@101 m=0 t=20',
      'trade #2 s2<-m 5@101 m=0 t=15',
      'canceled m PRICE_PROTECTION 15',
    ]);
    expect(b.size).toBe(3);
    expect(b.openOrder('m')).toBeUndefined();
  });

  it('caps the quote notional of a BUY: the sum of per-fill ceilings never exceeds the cap', () => {
    const b = standard();
    // 101 per unit: 10 units = 1010, 5 more = 505; cap 1600 buys 10 + 5 then floor(85/102) = 0.
    expect(brief(b.place(market('m', 'BUY', 30, { maxQuoteNotional: 1600n }), NOW))).toEqual([
      'accepted m',
      'trade #1 s1<-m 10@101 m=0 t=20',
      'trade #2 s2<-m 5@101 m=0 t=15',
      'canceled m NOTIONAL_CAP 15',
    ]);
    // A cap smaller than one level: partial fill of the maker, then NOTIONAL_CAP.
    expect(brief(b.place(market('n', 'BUY', 5, { maxQuoteNotional: 350n }), NOW))).toEqual([
      'accepted n',
      'trade #3 s3<-n 3@102 m=4 t=2',
      'canceled n NOTIONAL_CAP 2',
    ]);
    // A cap that fits nothing.
    expect(brief(b.place({ ...gtc('o', 'Z', 'BUY', 110, 1), tif: 'IOC', maxQuoteNotional: 101n }, NOW))).toEqual([
      'accepted o',
      'canceled o NOTIONAL_CAP 1',
    ]);
  });

  it('rounds each fill notional up in scaled units and sizes fills to qtyStep', () => {
    // base scale 3, quote scale 2: notional = price * qty * 100 / 1e12.
    const cfg = { tickSize: 10_000_000n, qtyStep: 10n, baseScale: 3, quoteScale: 2 };
    const scale = notionalScale(3, 2);
    expect(scale).toEqual({ mul: 1n, div: 10_000_000_000n });
    const price = 123_450_000_000n; // 123.45
    expect(quoteNotional(price, 1n, scale)).toBe(13n); // 0.12345 -> 0.13 (12.345 cents up)
    expect(quoteNotional(price, 1000n, scale)).toBe(12_345n); // exactly 123.45
    expect(maxQtyForBudget(price, 12_345n, 1n, scale)).toBe(1000n);
    expect(maxQtyForBudget(price, 12_344n, 1n, scale)).toBe(999n);
    expect(maxQtyForBudget(price, 12_344n, 10n, scale)).toBe(990n);
    expect(notionalScale(0, 12)).toEqual({ mul: 1000n, div: 1n });
    expect(quoteNotional(7n, 3n, notionalScale(0, 12))).toBe(21_000n);

    const b = new OrderBook(cfg);
    b.place({ orderId: 's', accountId: 'A', side: 'SELL', type: 'LIMIT', tif: 'GTC', price, qty: 5000n }, NOW);
    const ev = b.place({ orderId: 'm', accountId: 'B', side: 'BUY', type: 'MARKET', tif: 'IOC', qty: 5000n, maxQuoteNotional: 12_344n }, NOW);
    const trade = ev.find((e) => e.type === 'trade');
    expect(trade).toMatchObject({ qty: 990n, price });
    expect(quoteNotional(price, 990n, scale)).toBeLessThanOrEqual(12_344n);
    expect(ev[ev.length - 1]).toMatchObject({ type: 'canceled', reason: 'NOTIONAL_CAP', remaining: 4010n });
  });
});

describe('matching: post-only', () => {
  it('rests when it would not take, is canceled whole when it would (nothing matches)', () => {
    const b = standard();
    expect(brief(b.place(gtc('p', 'Z', 'BUY', 100, 3, { postOnly: true }), NOW))).toEqual(['accepted p', 'rested p 3@100 seq=6']);
    expect(brief(b.place(gtc('q', 'Z', 'BUY', 101, 3, { postOnly: true }), NOW))).toEqual(['accepted q', 'canceled q POST_ONLY 3']);
    expect(b.depth(1).asks).toEqual([{ price: P(101), qty: 15n, orders: 2 }]);
  });

  it('counts a same-account maker as taking (no STP on post-only)', () => {
    const b = standard();
    expect(brief(b.place(gtc('q', 'A', 'BUY', 101, 3, { postOnly: true, stpMode: 'EXPIRE_MAKER' }), NOW))).toEqual([
      'accepted q',
      'canceled q POST_ONLY 3',
    ]);
    expect(b.openOrder('s1')?.qty).toBe(10n);
  });

  it('ignores expired makers in the way (they are expired first)', () => {
    const b = book();
    b.place({ ...gtc('g', 'A', 'SELL', 100, 2), tif: 'GTD', expireAtNs: 2_000n }, NOW);
    expect(brief(b.place(gtc('p', 'Z', 'BUY', 100, 1, { postOnly: true }), 2_000n))).toEqual([
      'accepted p',
      'canceled g EXPIRED 2 resting',
      'rested p 1@100 seq=2',
    ]);
  });

  it('wouldTake answers as matching would, past expired makers, and changes nothing', () => {
    const b = book();
    b.place({ ...gtc('g', 'A', 'SELL', 100, 2), tif: 'GTD', expireAtNs: 2_000n }, NOW);
    b.place(gtc('s', 'A', 'SELL', 102, 1), NOW);
    expect(b.wouldTake('BUY', P(100), NOW)).toBe(true);
    expect(b.wouldTake('BUY', P(101), 2_000n)).toBe(false);
    expect(b.wouldTake('BUY', P(102), 2_000n)).toBe(true);
    expect(b.wouldTake('SELL', P(1), NOW)).toBe(false);
    expect(b.size).toBe(2);
  });

  it('a price modify that would take is rejected and leaves the order untouched', () => {
    const b = standard();
    b.place(gtc('p', 'Z', 'BUY', 100, 3, { postOnly: true }), NOW);
    expect(brief(b.modify('p', { newPrice: P(101) }, NOW))).toEqual(['rejected modify p POST_ONLY_WOULD_TAKE']);
    expect(b.openOrder('p')).toMatchObject({ price: P(100), qty: 3n, prioritySeq: 6n });
    expect(brief(b.modify('p', { newPrice: P(99), newQty: 5n }, NOW))).toEqual(['modified p 3@100 -> 5@99 lost', 'rested p 5@99 seq=7']);
  });
});

describe('matching: self-trade prevention (the taker mode governs)', () => {
  /** Asks: A 5@101 (seq 1), B 5@101 (seq 2). Taker of account A buys 8 at 101. */
  function stp(mode: StpMode | undefined): string[] {
    const b = book();
    b.place(gtc('a1', 'A', 'SELL', 101, 5, { stpMode: 'EXPIRE_TAKER' }), NOW);
    b.place(gtc('b1', 'B', 'SELL', 101, 5), NOW);
    const t = gtc('t', 'A', 'BUY', 101, 8);
    if (mode) t.stpMode = mode;
    const events = brief(b.place(t, NOW));
    const rest = b.snapshot();
    return [...events, `book ${[...rest.bids, ...rest.asks].map((o) => `${String(o.orderId)}:${o.qty}`).join(',')}`];
  }

  it('EXPIRE_TAKER cancels the taker remainder, the maker stays', () => {
    expect(stp('EXPIRE_TAKER')).toEqual(['accepted t', 'canceled t STP 8', 'book a1:5,b1:5']);
  });

  it('EXPIRE_MAKER (the default) cancels the maker and keeps matching', () => {
    const expected = ['accepted t', 'canceled a1 STP 5 resting', 'trade #1 b1<-t 5@101 m=0 t=3', 'rested t 3@101 seq=3', 'book t:3'];
    expect(stp('EXPIRE_MAKER')).toEqual(expected);
    expect(stp(undefined)).toEqual(expected);
  });

  it('EXPIRE_BOTH cancels both', () => {
    expect(stp('EXPIRE_BOTH')).toEqual(['accepted t', 'canceled a1 STP 5 resting', 'canceled t STP 8', 'book b1:5']);
  });

  it('DECREMENT reduces both by the smaller quantity, cancels the one at zero, no trade', () => {
    expect(stp('DECREMENT')).toEqual([
      'accepted t',
      'canceled a1 STP 5 resting',
      'decremented t -5 =3',
      'trade #1 b1<-t 3@101 m=2 t=0',
      'book b1:2',
    ]);
    // Taker smaller than the maker: the taker goes to zero, the maker is decremented.
    const b = book();
    b.place(gtc('a1', 'A', 'SELL', 101, 5), NOW);
    expect(brief(b.place(gtc('t', 'A', 'BUY', 101, 2, { stpMode: 'DECREMENT' }), NOW))).toEqual([
      'accepted t',
      'decremented a1 -2 =3',
      'canceled t STP 2',
    ]);
    expect(b.depth().asks).toEqual([{ price: P(101), qty: 3n, orders: 1 }]);
    // Equal quantities: both canceled.
    expect(brief(b.place(gtc('u', 'A', 'BUY', 101, 3, { stpMode: 'DECREMENT' }), NOW))).toEqual([
      'accepted u',
      'canceled a1 STP 3 resting',
      'canceled u STP 3',
    ]);
    expect(b.size).toBe(0);
  });

  it('applies to the maker account only: other accounts at the same level still trade', () => {
    const b = book();
    b.place(gtc('x', 'B', 'SELL', 101, 2), NOW);
    b.place(gtc('a', 'A', 'SELL', 101, 2), NOW);
    expect(brief(b.place(gtc('t', 'A', 'BUY', 101, 3, { stpMode: 'EXPIRE_TAKER' }), NOW))).toEqual([
      'accepted t',
      'trade #1 x<-t 2@101 m=0 t=1',
      'canceled t STP 1',
    ]);
  });
});

describe('matching: GTD expiry', () => {
  const gtd = (orderId: string, accountId: string, side: 'BUY' | 'SELL', price: number, qty: number, expireAtNs: bigint): PlaceOrder => ({
    ...gtc(orderId, accountId, side, price, qty),
    tif: 'GTD',
    expireAtNs,
  });

  it('is canceled on arrival at or after its expiry, without matching', () => {
    const b = standard();
    expect(brief(b.place(gtd('g', 'Z', 'BUY', 101, 1, NOW), NOW))).toEqual(['accepted g', 'canceled g EXPIRED 1']);
    expect(brief(b.place(gtd('h', 'Z', 'BUY', 101, 1, NOW + 1n), NOW))).toEqual(['accepted h', 'trade #1 s1<-h 1@101 m=9 t=0']);
  });

  it('a maker is not executable at the instant equal to its expiry: expired when met', () => {
    const b = book();
    b.place(gtd('g', 'A', 'SELL', 100, 5, 2_000n), NOW);
    b.place(gtc('s', 'B', 'SELL', 101, 5), NOW);
    expect(brief(b.place(gtc('t', 'Z', 'BUY', 101, 1), 1_999n))).toEqual(['accepted t', 'trade #1 g<-t 1@100 m=4 t=0']);
    expect(brief(b.place(gtc('u', 'Z', 'BUY', 101, 2), 2_000n))).toEqual([
      'accepted u',
      'canceled g EXPIRED 4 resting',
      'trade #2 s<-u 2@101 m=3 t=0',
    ]);
  });

  it('expireDue cancels due orders in (expireAtNs, prioritySeq) order, priority lost counts', () => {
    const b = book();
    b.place(gtd('a', 'A', 'BUY', 90, 1, 5_000n), NOW);
    b.place(gtd('b', 'A', 'BUY', 91, 1, 5_000n), NOW);
    b.place(gtd('c', 'A', 'SELL', 110, 1, 4_000n), NOW);
    b.place(gtd('d', 'A', 'SELL', 111, 1, 5_000n), NOW);
    b.place(gtd('e', 'A', 'SELL', 111, 1, 6_000n), NOW);
    b.place(gtc('f', 'A', 'SELL', 112, 1), NOW);
    b.modify('a', { newQty: 2n }, NOW); // a loses priority: now after b and d
    b.modify('d', { newQty: 1n }, NOW); // no change: keeps it
    expect(brief(b.expireDue(3_999n))).toEqual([]);
    expect(brief(b.expireDue(5_000n))).toEqual([
      'canceled c EXPIRED 1 resting',
      'canceled b EXPIRED 1 resting',
      'canceled d EXPIRED 1 resting',
      'canceled a EXPIRED 2 resting',
    ]);
    expect(b.restingOrders().map((o) => o.orderId)).toEqual(['e', 'f']);
    expect(brief(b.expireDue(10_000n))).toEqual(['canceled e EXPIRED 1 resting']);
    expect(brief(b.expireDue(10_000n))).toEqual([]);
  });

  it('expireDue skips orders already gone (canceled, filled, modified away)', () => {
    const b = book();
    for (let i = 0; i < 200; i++) {
      b.place(gtd(`g${i}`, 'A', 'SELL', 100 + (i % 5), 1, 5_000n + BigInt(i % 7)), NOW);
      if (i % 3 === 0) b.cancel(`g${i}`);
      else if (i % 3 === 1) b.modify(`g${i}`, { newPrice: P(120) }, NOW);
    }
    b.place(gtc('t', 'B', 'BUY', 101, 10), NOW);
    const left = b.restingOrders().filter((o) => o.side === 'SELL');
    const events = b.expireDue(6_000n);
    expect(left.length).toBeGreaterThan(20);
    expect(events).toHaveLength(left.length);
    expect(b.restingOrders().filter((o) => o.side === 'SELL')).toEqual([]);
  });

  it('modify of an expired order expires it and rejects the modify', () => {
    const b = book();
    b.place(gtd('g', 'A', 'BUY', 100, 5, 2_000n), NOW);
    expect(brief(b.modify('g', { newQty: 4n }, 2_000n))).toEqual(['canceled g EXPIRED 5 resting', 'rejected modify g ORDER_EXPIRED']);
    expect(b.size).toBe(0);
  });
});

describe('matching: modify', () => {
  it('a quantity decrease keeps time priority', () => {
    const b = book();
    b.place(gtc('x', 'A', 'SELL', 101, 5), NOW);
    b.place(gtc('y', 'B', 'SELL', 101, 5), NOW);
    expect(brief(b.modify('x', { newQty: 2n }, NOW))).toEqual(['modified x 5@101 -> 2@101 kept']);
    expect(b.depth().asks).toEqual([{ price: P(101), qty: 7n, orders: 2 }]);
    expect(brief(b.place(gtc('t', 'Z', 'BUY', 101, 3), NOW))).toEqual([
      'accepted t',
      'trade #1 x<-t 2@101 m=0 t=1',
      'trade #2 y<-t 1@101 m=4 t=0',
    ]);
  });

  it('an unchanged quantity or price is a no-op that keeps priority', () => {
    const b = book();
    b.place(gtc('x', 'A', 'SELL', 101, 5), NOW);
    expect(brief(b.modify('x', { newQty: 5n, newPrice: P(101) }, NOW))).toEqual(['modified x 5@101 -> 5@101 kept']);
    expect(b.openOrder('x')?.prioritySeq).toBe(1n);
  });

  it('a quantity increase loses time priority (re-queued at the back)', () => {
    const b = book();
    b.place(gtc('x', 'A', 'SELL', 101, 5), NOW);
    b.place(gtc('y', 'B', 'SELL', 101, 5), NOW);
    expect(brief(b.modify('x', { newQty: 6n }, NOW))).toEqual(['modified x 5@101 -> 6@101 lost', 'rested x 6@101 seq=3']);
    expect(brief(b.place(gtc('t', 'Z', 'BUY', 101, 3), NOW))).toEqual(['accepted t', 'trade #1 y<-t 3@101 m=2 t=0']);
  });

  it('a price change loses priority, and may cross and match as a taker', () => {
    const b = standard();
    expect(brief(b.modify('b2', { newPrice: P(99) }, NOW))).toEqual(['modified b2 6@98 -> 6@99 lost', 'rested b2 6@99 seq=6']);
    expect(b.snapshot().bids.map((o) => o.orderId)).toEqual(['b1', 'b2']);
    expect(brief(b.modify('b1', { newPrice: P(101), newQty: 12n }, NOW))).toEqual([
      'modified b1 4@99 -> 12@101 lost',
      'trade #1 s1<-b1 10@101 m=0 t=2',
      'trade #2 s2<-b1 2@101 m=3 t=0',
    ]);
    expect(b.openOrder('b1')).toBeUndefined();
    // A crossing modify applies the order's own STP mode.
    b.place(gtc('own', 'E', 'SELL', 100, 1), NOW);
    expect(brief(b.modify('b2', { newPrice: P(100) }, NOW))).toEqual([
      'modified b2 6@99 -> 6@100 lost',
      'canceled own STP 1 resting',
      'rested b2 6@100 seq=8',
    ]);
  });
});

describe('matching: cancel, reads, restore', () => {
  it('cancel removes the order in O(1) and is not repeatable', () => {
    const b = standard();
    expect(b.cancel('s1')).toEqual([
      { type: 'canceled', orderId: 's1', accountId: 'A', side: 'SELL', price: P(101), reason: 'USER', remaining: 10n, wasResting: true },
    ]);
    expect(brief(b.cancel('s1'))).toEqual(['rejected cancel s1 ORDER_NOT_FOUND']);
    b.cancel('s2');
    expect(b.bestAsk()).toBe(P(102));
    expect(b.depth(5)).toEqual({
      bids: [{ price: P(99), qty: 4n, orders: 1 }, { price: P(98), qty: 6n, orders: 1 }],
      asks: [{ price: P(102), qty: 7n, orders: 1 }],
    });
    expect(b.depth(0)).toEqual({ bids: [], asks: [] });
  });

  it('trade events carry both sides in full', () => {
    const b = standard();
    const [, trade] = b.place(gtc('t', 'Z', 'BUY', 101, 1), NOW);
    expect(trade).toEqual({
      type: 'trade',
      matchId: 1n,
      price: P(101),
      qty: 1n,
      makerOrderId: 's1',
      takerOrderId: 't',
      makerAccountId: 'A',
      takerAccountId: 'Z',
      takerSide: 'BUY',
      makerRemaining: 9n,
      takerRemaining: 0n,
    });
  });

  it('restore rebuilds the same book in the same priority and raises nextPrioritySeq', () => {
    const b = standard();
    b.modify('s1', { newQty: 11n }, NOW); // s1 now behind s2
    b.place({ ...gtc('g', 'Q', 'BUY', 97, 2), tif: 'GTD', expireAtNs: 9_000n }, NOW);
    const saved = b.restingOrders();
    expect(saved.map((o) => o.prioritySeq)).toEqual([2n, 3n, 4n, 5n, 6n, 7n]);
    const r = new OrderBook({ tickSize: T, baseScale: 0, quoteScale: 0, nextMatchId: b.nextMatchId });
    r.restore(saved);
    expect(r.snapshot()).toEqual(b.snapshot());
    expect(r.nextPrioritySeq).toBe(8n);
    expect(brief(r.place(gtc('t', 'Z', 'BUY', 101, 6), NOW))).toEqual([
      'accepted t',
      'trade #1 s2<-t 5@101 m=0 t=1',
      'trade #2 s1<-t 1@101 m=10 t=0',
    ]);
    expect(brief(r.expireDue(9_000n))).toEqual(['canceled g EXPIRED 2 resting']);
  });

  it('restore refuses corrupt input', () => {
    const o = { orderId: 'a', accountId: 'A', side: 'BUY', tif: 'GTC', price: P(100), qty: 1n, prioritySeq: 5n, postOnly: false, stpMode: 'EXPIRE_MAKER' } as const;
    expect(() => book().restore([o, { ...o, orderId: 'b', prioritySeq: 5n }])).toThrow(/prioritySeq/);
    expect(() => book().restore([o, { ...o, prioritySeq: 6n }])).toThrow(/duplicate/);
    expect(() => book().restore([o, { ...o, orderId: 'b', side: 'SELL', prioritySeq: 6n }])).toThrow(/crosses/);
    expect(() => book().restore([{ ...o, price: 1n }])).toThrow(/price/);
    expect(() => book().restore([{ ...o, qty: 0n }])).toThrow(/qty/);
    expect(() => book().restore([{ ...o, tif: 'GTD' }])).toThrow(/expireAtNs/);
  });

  it('numeric and bigint ids work as Map keys by value', () => {
    const b = book();
    b.place({ ...gtc('x', 1n, 'SELL', 100, 1), orderId: 10n }, NOW);
    expect(b.openOrder(10n)?.qty).toBe(1n);
    expect(brief(b.place({ ...gtc('y', 1n, 'BUY', 100, 1), orderId: 11n }, NOW))).toEqual(['accepted 11', 'canceled 10 STP 1 resting', 'rested 11 1@100 seq=2']);
  });
});
