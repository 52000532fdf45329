import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderBook } from '../../../src/domain/matching/index.ts';
import { CONFIGS, Driver, apply, genCommandWith, genStream, type GenCommand } from './harness.ts';
import { ReferenceEngine } from './reference-engine.ts';

/**
 * Differential test: the same seeded random command streams drive the OrderBook and the
 * naive ReferenceEngine; every command must produce identical event lists, and after
 * every command the books (orders in priority order, depth, best prices, sequences) must
 * be identical. A `restart` command rebuilds the OrderBook from its own resting orders
 * and sequence counters, as the service does after a restart.
 */

/** Runs one stream through both engines; returns the most price levels seen on one side. */
function runStream(index: number, cmds: GenCommand[], checkBookEvery = 1, sided = false): number {
  let maxLevels = 0;
  const { config, center } = CONFIGS[index]!;
  let fast = new OrderBook(config);
  const ref = new ReferenceEngine(config);
  const driver = new Driver(config, center, sided);
  for (const [i, gen] of cmds.entries()) {
    const live = fast.restingOrders().map((o) => o.orderId);
    const cmd = driver.concretize(gen, live);
    if (cmd.k === 'restart') {
      const rebuilt = new OrderBook({ ...config, nextMatchId: fast.nextMatchId, nextPrioritySeq: fast.nextPrioritySeq });
      rebuilt.restore(fast.restingOrders());
      fast = rebuilt;
    }
    const got = apply(fast, cmd);
    const want = apply(ref, cmd);
    const full = i % checkBookEvery === 0 || i === cmds.length - 1;
    const state = (events: unknown, e: OrderBook | ReferenceEngine) =>
      full ? ser({ events, snapshot: e.snapshot(), depth: e.depth(), matchId: e.nextMatchId, seq: e.nextPrioritySeq }) : ser(events);
    const gotState = state(got, fast);
    const wantState = state(want, ref);
    if (gotState !== wantState) {
      // Only on a difference: readable diffs.
      const where = `command ${i}: ${ser(cmd)}`;
      expect(got, where).toEqual(want);
      expect(fast.snapshot(), where).toEqual(ref.snapshot());
      expect(fast.depth(), where).toEqual(ref.depth());
      expect(gotState, where).toBe(wantState);
    }
    const depth = fast.depth(1);
    if (fast.bestBid() !== (depth.bids[0]?.price ?? null) || fast.bestAsk() !== (depth.asks[0]?.price ?? null)) {
      throw new Error(`command ${i}: best prices disagree with depth`);
    }
    if (fast.size !== live.length + countDelta(got)) throw new Error(`command ${i}: events do not explain the resting count`);
    if (full) {
      const d = fast.depth();
      maxLevels = Math.max(maxLevels, d.bids.length, d.asks.length);
    }
  }
  return maxLevels;
}

/** Canonical text of a value (bigints tagged). */
function ser(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
}

/** Resting count change implied by one command's events (a check on the event contract). */
function countDelta(events: ReturnType<OrderBook['place']>): number {
  let d = 0;
  for (const e of events) {
    if (e.type === 'rested') d++;
    else if (e.type === 'canceled' && e.wasResting) d--;
    else if (e.type === 'trade' && e.makerRemaining === 0n) d--;
    else if (e.type === 'modified' && !e.priorityKept) d--;
  }
  return d;
}

describe('matching: differential test against the naive reference engine', () => {
  for (const [index, { name }] of CONFIGS.entries()) {
    it(`identical events and books on random streams (${name})`, () => {
      fc.assert(
        fc.property(genStream, (cmds) => {
          runStream(index, cmds);
        }),
        { seed: 20_251_122 + index, numRuns: 400 },
      );
    });
  }

  it('identical on long streams over a wide book (hundreds of levels: chunk splits and merges)', () => {
    let maxLevels = 0;
    fc.assert(
      fc.property(fc.array(genCommandWith(400, 60), { minLength: 2500, maxLength: 3000, size: 'max' }), (cmds) => {
        maxLevels = Math.max(maxLevels, runStream(1, cmds, 10, true));
      }),
      // No shrinking of 3,000-command streams (it would take minutes); the failure names the command.
      { seed: 31_337, numRuns: 4, endOnFailure: true },
    );
    expect(maxLevels).toBeGreaterThan(128);
  });

  it('identical while hundreds of levels are built and torn down in random order', () => {
    const { config, center } = CONFIGS[0]!;
    const fast = new OrderBook(config);
    const ref = new ReferenceEngine(config);
    let seed = 12_345;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor((seed / 2_147_483_648) * n);
    };
    const live: string[] = [];
    let id = 0;
    const step = (cmd: Parameters<typeof apply>[1]) => {
      const got = apply(fast, cmd);
      expect(ser(got)).toBe(ser(apply(ref, cmd)));
    };
    for (let round = 0; round < 3; round++) {
      // Build: 600 levels per side in random order (bids 1..600 below the center + 1000, asks above).
      for (let i = 0; i < 1200; i++) {
        const side = i % 2 === 0 ? 'BUY' : 'SELL';
        const off = BigInt(1 + rand(600));
        const price = (center + 1000n + (side === 'BUY' ? -off : off)) * config.tickSize;
        const orderId = `w${id++}`;
        live.push(orderId);
        step({ k: 'place', order: { orderId, accountId: `a${rand(50)}`, side, type: 'LIMIT', tif: 'GTC', price, qty: 1n + BigInt(rand(5)) }, now: 1n });
      }
      expect(ser(fast.depth())).toBe(ser(ref.depth()));
      // Tear down 90% in random order, with some moves.
      for (let i = 0; i < 1080; i++) {
        const k = rand(live.length);
        const orderId = live[k]!;
        if (i % 7 === 0) {
          const o = fast.openOrder(orderId)!;
          const off = BigInt(1 + rand(600));
          step({ k: 'modify', id: orderId, change: { newPrice: (center + 1000n + (o.side === 'BUY' ? -off : off)) * config.tickSize }, now: 1n });
        } else {
          live.splice(k, 1);
          step({ k: 'cancel', id: orderId });
        }
      }
      expect(ser(fast.snapshot())).toBe(ser(ref.snapshot()));
      expect(ser(fast.depth())).toBe(ser(ref.depth()));
    }
    // Ordered patterns: build levels in price order, then cancel in ascending and in
    // descending price order, leaving every tenth (chunks shrink from either end).
    for (const order of ['ascending', 'descending'] as const) {
      const ids: string[] = [];
      for (let i = 1; i <= 700; i++) {
        const orderId = `p${id++}`;
        ids.push(orderId);
        step({ k: 'place', order: { orderId, accountId: 'p', side: 'BUY', type: 'LIMIT', tif: 'GTC', price: BigInt(i) * config.tickSize, qty: 1n }, now: 1n });
      }
      const doomed = ids.filter((_x, i) => i % 10 !== 5);
      for (const orderId of order === 'ascending' ? doomed : doomed.reverse()) step({ k: 'cancel', id: orderId });
      expect(ser(fast.snapshot())).toBe(ser(ref.snapshot()));
      expect(ser(fast.depth())).toBe(ser(ref.depth()));
    }
    // Sweep everything that is left from both sides.
    step({ k: 'place', order: { orderId: 'sweep-b', accountId: 'x', side: 'BUY', type: 'MARKET', tif: 'IOC', qty: 100_000n }, now: 1n });
    step({ k: 'place', order: { orderId: 'sweep-s', accountId: 'x', side: 'SELL', type: 'MARKET', tif: 'IOC', qty: 100_000n }, now: 1n });
    expect(fast.size).toBe(0);
    expect(fast.depth()).toEqual({ bids: [], asks: [] });
  });

  it('covers every event type, cancel reason and reject reason across the runs', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: CONFIGS.length - 1 }), genStream, (index, cmds) => {
        const { config, center } = CONFIGS[index]!;
        const fast = new OrderBook(config);
        const driver = new Driver(config, center);
        for (const gen of cmds) {
          const cmd = driver.concretize(gen, fast.restingOrders().map((o) => o.orderId));
          for (const e of apply(fast, cmd)) {
            seen.add(e.type);
            if (e.type === 'canceled') seen.add(`canceled:${e.reason}`);
            if (e.type === 'rejected') seen.add(`rejected:${e.reason}`);
            if (e.type === 'modified') seen.add(`modified:${e.priorityKept}`);
          }
        }
      }),
      { seed: 7, numRuns: 300 },
    );
    const expected = [
      'accepted', 'trade', 'canceled', 'decremented', 'rested', 'modified', 'rejected',
      'canceled:USER', 'canceled:IOC_REMAINDER', 'canceled:STP', 'canceled:EXPIRED', 'canceled:POST_ONLY',
      'canceled:NOTIONAL_CAP', 'canceled:MARKET_NO_LIQUIDITY', 'canceled:PRICE_PROTECTION',
      'rejected:DUPLICATE_ORDER_ID', 'rejected:ORDER_NOT_FOUND', 'rejected:INVALID_ORDER_TYPE', 'rejected:INVALID_QTY',
      'rejected:INVALID_QTY_STEP', 'rejected:INVALID_TICK', 'rejected:INVALID_EXPIRY', 'rejected:INVALID_NOTIONAL_CAP',
      'rejected:INVALID_MODIFY', 'rejected:POST_ONLY_WOULD_TAKE', 'rejected:ORDER_EXPIRED',
      'modified:true', 'modified:false',
    ];
    expect([...expected].filter((x) => !seen.has(x))).toEqual([]);
  });
});
