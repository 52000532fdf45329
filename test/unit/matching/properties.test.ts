import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderBook, type MatchEvent, type OrderId, type PlaceOrder, type RestingOrder } from '../../../src/domain/matching/index.ts';
import { CONFIGS, Driver, apply, genStream, notionalOf, type Concrete, type GenCommand } from './harness.ts';

/**
 * Properties of the OrderBook alone, checked after every command of seeded random
 * streams (every order kind, STP mode, post-only, cancel, modify, expiry, restart).
 */

interface Ledger {
  submitted: bigint;
  filled: bigint;
  canceled: bigint;
  order: PlaceOrder;
  terminal: boolean;
}

class Checker {
  private readonly ledgers = new Map<OrderId, Ledger>();
  private lastMatchId: bigint | null = null;
  private lastSeq: bigint | null = null;

  constructor(private readonly index: number) {}

  private fail(msg: string): never {
    throw new Error(msg);
  }

  check(book: OrderBook, cmd: Concrete, before: { bids: RestingOrder[]; asks: RestingOrder[] }, events: MatchEvent[]): void {
    const config = CONFIGS[this.index]!.config;
    const pre = new Map<OrderId, RestingOrder>();
    for (const o of [...before.bids, ...before.asks]) pre.set(o.orderId, o);
    const now = cmd.k === 'place' || cmd.k === 'modify' || cmd.k === 'expire' ? cmd.now : null;

    // 1. Never crossed (nor locked).
    const bid = book.bestBid();
    const ask = book.bestAsk();
    if (bid !== null && ask !== null && !(bid < ask)) this.fail(`crossed book: bid ${bid} ask ${ask}`);

    // The taker of this command (if any), for per-command trade properties.
    let taker: { id: OrderId; side: 'BUY' | 'SELL'; limit: bigint | null; cap: bigint | null; expireAtNs: bigint | null } | null = null;
    if (cmd.k === 'place') {
      const o = cmd.order;
      taker = {
        id: o.orderId,
        side: o.side,
        limit: o.price ?? null,
        cap: o.maxQuoteNotional ?? null,
        expireAtNs: o.expireAtNs ?? null,
      };
    } else if (cmd.k === 'modify') {
      const o = pre.get(cmd.id);
      if (o) taker = { id: o.orderId, side: o.side, limit: cmd.change.newPrice ?? o.price, cap: null, expireAtNs: o.expireAtNs ?? null };
    }

    let spent = 0n;
    let lastPrice: bigint | null = null;
    let lastSeqAtPrice: bigint | null = null;
    const touched = new Set<OrderId>();
    for (const e of events) {
      switch (e.type) {
        case 'accepted':
          this.ledgers.set(e.orderId, { submitted: e.order.qty, filled: 0n, canceled: 0n, order: e.order, terminal: false });
          touched.add(e.orderId);
          break;
        case 'modified': {
          const l = this.ledgers.get(e.orderId) ?? this.fail(`modified unknown ${String(e.orderId)}`);
          l.submitted += e.qty - e.oldQty;
          touched.add(e.orderId);
          break;
        }
        case 'canceled': {
          const l = this.ledgers.get(e.orderId) ?? this.fail(`canceled unknown ${String(e.orderId)}`);
          l.canceled += e.remaining;
          l.terminal = true;
          touched.add(e.orderId);
          break;
        }
        case 'decremented': {
          const l = this.ledgers.get(e.orderId) ?? this.fail(`decremented unknown ${String(e.orderId)}`);
          l.canceled += e.qty;
          touched.add(e.orderId);
          break;
        }
        case 'rested': {
          const l = this.ledgers.get(e.orderId) ?? this.fail(`rested unknown ${String(e.orderId)}`);
          // 7. IOC and market orders never rest.
          if (l.order.tif === 'IOC') this.fail(`IOC/market order ${String(e.orderId)} rested`);
          if (this.lastSeq !== null && e.prioritySeq <= this.lastSeq) this.fail('prioritySeq not increasing');
          this.lastSeq = e.prioritySeq;
          break;
        }
        case 'trade': {
          if (taker === null || e.takerOrderId !== taker.id) this.fail('trade without this command\'s taker');
          // 3. STP: nobody trades with themselves.
          if (e.makerAccountId === e.takerAccountId) this.fail(`self-trade of ${String(e.makerAccountId)}`);
          if (this.lastMatchId !== null && e.matchId !== this.lastMatchId + 1n) this.fail('matchId not consecutive');
          this.lastMatchId = e.matchId;
          const maker = pre.get(e.makerOrderId) ?? this.fail('maker was not resting before the command');
          if (e.price !== maker.price) this.fail('trade not at the maker price');
          if (maker.side === taker.side) this.fail('maker on the taker side');
          // Within the taker's limit.
          if (taker.limit !== null && (taker.side === 'BUY' ? e.price > taker.limit : e.price < taker.limit)) {
            this.fail('trade beyond the taker limit');
          }
          // 5. Price priority: a buy walks asks up, a sell walks bids down.
          if (lastPrice !== null && (taker.side === 'BUY' ? e.price < lastPrice : e.price > lastPrice)) this.fail('price priority');
          // 4. Time priority within a price.
          if (lastPrice === e.price && lastSeqAtPrice !== null && maker.prioritySeq <= lastSeqAtPrice) this.fail('time priority');
          lastPrice = e.price;
          lastSeqAtPrice = maker.prioritySeq;
          // No maker better than this one (price, then time) may be left untouched.
          for (const o of pre.values()) {
            if (o.side !== maker.side) continue;
            const better =
              (maker.side === 'SELL' ? o.price < maker.price : o.price > maker.price) ||
              (o.price === maker.price && o.prioritySeq < maker.prioritySeq);
            if (!better) continue;
            const after = book.openOrder(o.orderId);
            if (after !== undefined && after.qty === o.qty && after.prioritySeq === o.prioritySeq) {
              this.fail(`order ${String(o.orderId)} was skipped by the trade with ${String(maker.orderId)}`);
            }
          }
          // 8. GTD never trades at or after expiry.
          if (now !== null && maker.expireAtNs !== undefined && maker.expireAtNs <= now) this.fail('expired maker traded');
          if (now !== null && taker.expireAtNs !== null && taker.expireAtNs <= now) this.fail('expired taker traded');
          // 6. Notional cap.
          spent += notionalOf(config, e.price, e.qty);
          if (taker.cap !== null && spent > taker.cap) this.fail(`notional cap exceeded: ${spent} > ${taker.cap}`);
          const ml = this.ledgers.get(e.makerOrderId) ?? this.fail('maker ledger');
          const tl = this.ledgers.get(e.takerOrderId) ?? this.fail('taker ledger');
          ml.filled += e.qty;
          tl.filled += e.qty;
          if (e.qty <= 0n) this.fail('non-positive trade');
          touched.add(e.makerOrderId);
          touched.add(e.takerOrderId);
          break;
        }
        case 'rejected':
          break;
      }
    }
    // 2. Conservation for every order this command touched: filled + resting + canceled = submitted.
    for (const id of touched) {
      const l = this.ledgers.get(id)!;
      const resting = book.openOrder(id)?.qty ?? 0n;
      if (l.filled + resting + l.canceled !== l.submitted) {
        this.fail(`conservation of ${String(id)}: filled ${l.filled} + resting ${resting} + canceled ${l.canceled} != ${l.submitted}`);
      }
      if (l.order.tif === 'IOC' && book.openOrder(id) !== undefined) this.fail('IOC order is on the book');
      if (l.terminal && book.openOrder(id) !== undefined) this.fail('terminal order on the book');
    }
  }

  /** Conservation over every order ever accepted (run at the end). */
  checkAll(book: OrderBook): void {
    for (const [id, l] of this.ledgers) {
      const resting = book.openOrder(id)?.qty ?? 0n;
      // An id reused after its order ended starts a new ledger; skip ids whose ledger was replaced.
      if (l.filled + resting + l.canceled !== l.submitted) this.fail(`final conservation of ${String(id)}`);
    }
  }
}

function run(index: number, cmds: GenCommand[]): void {
  const { config, center } = CONFIGS[index]!;
  let book = new OrderBook(config);
  const driver = new Driver(config, center);
  const checker = new Checker(index);
  for (const gen of cmds) {
    const before = book.snapshot();
    const cmd = driver.concretize(gen, [...before.bids, ...before.asks].map((o) => o.orderId));
    if (cmd.k === 'restart') {
      const rebuilt = new OrderBook({ ...config, nextMatchId: book.nextMatchId, nextPrioritySeq: book.nextPrioritySeq });
      rebuilt.restore(book.restingOrders());
      expect(rebuilt.snapshot()).toEqual(book.snapshot());
      book = rebuilt;
    }
    const events = apply(book, cmd);
    checker.check(book, cmd, before, events);
  }
  checker.checkAll(book);
}

describe('matching: properties after every command', () => {
  for (const [index, { name }] of CONFIGS.entries()) {
    it(`no crossed book, conservation, STP, priority, caps, IOC never rests, GTD expiry (${name})`, () => {
      fc.assert(
        fc.property(genStream, (cmds) => run(index, cmds)),
        { seed: 4242 + index, numRuns: 300 },
      );
    });
  }

  it('expireDue leaves no order at or past its expiry, and nothing else', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: CONFIGS.length - 1 }), genStream, fc.integer({ min: 0, max: 20 }), (index, cmds, extra) => {
        const { config, center } = CONFIGS[index]!;
        const book = new OrderBook(config);
        const driver = new Driver(config, center);
        for (const gen of cmds) {
          const live = book.restingOrders().map((o) => o.orderId);
          apply(book, driver.concretize(gen, live));
        }
        const now = driver.now + BigInt(extra);
        const before = book.restingOrders();
        const events = book.expireDue(now);
        const after = book.restingOrders();
        const due = before.filter((o) => o.expireAtNs !== undefined && o.expireAtNs <= now);
        expect(events.map((e) => (e.type === 'canceled' ? e.orderId : null))).toEqual(
          [...due].sort((a, b) => (a.expireAtNs! === b.expireAtNs! ? (a.prioritySeq < b.prioritySeq ? -1 : 1) : a.expireAtNs! < b.expireAtNs! ? -1 : 1)).map((o) => o.orderId),
        );
        expect(after).toEqual(before.filter((o) => !due.includes(o)));
      }),
      { seed: 99, numRuns: 200 },
    );
  });
});
