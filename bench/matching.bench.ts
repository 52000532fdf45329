import { OrderBook } from '../src/domain/matching/index.ts';
import type { MatchEvent, ModifyOrder, OrderBookConfig, PlaceOrder, RestingOrder } from '../src/domain/matching/index.ts';
import { seededRandom } from './harness.ts';

/**
 * The matching core alone on the exchange-core style mix (~9% GTC, 3% IOC, 6% cancel,
 * 82% modify) over ~1,000 resting orders. The command stream is generated before timing
 * (by driving a generator book, so every cancel/modify names an order that is live at
 * that point of the stream), then replayed on fresh books restored from the same
 * starting state. Reported against a baseline measured in the same run: a loop doing one
 * Map get + set per command over the same ids.
 */

const CONFIG: OrderBookConfig = { symbol: 'BTC-USDC', tickSize: 10_000_000n, baseScale: 8, quoteScale: 6 };
const TICK = 10_000_000n;
const MID = 100_000n * 1_000_000_000n; // 100,000.00 USDC
const LOT = 10_000n; // 0.0001 BTC
const NOW = 1_700_000_000_000_000_000n;
const RESTING = 1000;
const COMMANDS = 400_000;

type Command =
  | { k: 0; order: PlaceOrder }
  | { k: 1; id: number }
  | { k: 2; id: number; change: ModifyOrder };

export interface Workload {
  initial: RestingOrder[];
  commands: Command[];
  mix: { gtc: number; ioc: number; cancel: number; modify: number };
  restingMin: number;
  restingMax: number;
  levelsAvg: number;
  trades: number;
  events: number;
}

export function generate(seed = 1, count = COMMANDS): Workload {
  const rand = seededRandom(seed);
  const int = (n: number) => Math.floor(rand() * n);
  /** Passive offset in ticks: mostly near the touch, some deep. */
  const offset = () => BigInt(1 + Math.floor(Math.abs(((rand() + rand() + rand()) / 3 - 0.5) * 2) * 120));
  const book = new OrderBook(CONFIG);
  const live: number[] = []; // ids, with lazy removal
  const livePos = new Map<number, number>();
  const addLive = (id: number) => {
    livePos.set(id, live.length);
    live.push(id);
  };
  const dropLive = (id: number) => {
    const i = livePos.get(id);
    if (i === undefined) return;
    const last = live.pop()!;
    if (last !== id) {
      live[i] = last;
      livePos.set(last, i);
    }
    livePos.delete(id);
  };
  let trades = 0;
  let eventCount = 0;
  const track = (events: MatchEvent[]) => {
    eventCount += events.length;
    for (const e of events) {
      if (e.type === 'rested') addLive(e.orderId as number);
      else if (e.type === 'canceled' && e.wasResting) dropLive(e.orderId as number);
      else if (e.type === 'trade') {
        trades++;
        if (e.makerRemaining === 0n) dropLive(e.makerOrderId as number);
      } else if (e.type === 'modified' && !e.priorityKept) dropLive(e.orderId as number);
    }
  };
  let nextId = 1;
  const account = () => 1 + int(2000);
  const mid = () => {
    const b = book.bestBid();
    const a = book.bestAsk();
    if (b !== null && a !== null) return ((b + a) / 2n / TICK) * TICK;
    return b !== null ? b + TICK : a !== null ? a - TICK : MID;
  };
  for (let i = 0; i < RESTING; i++) {
    const side = i % 2 === 0 ? 'BUY' : 'SELL';
    const price = side === 'BUY' ? MID - offset() * TICK : MID + offset() * TICK;
    track(book.place({ orderId: nextId++, accountId: account(), side, type: 'LIMIT', tif: 'GTC', price, qty: LOT * BigInt(1 + int(20)) }, NOW));
  }
  const initial = book.restingOrders();
  eventCount = 0;
  const commands: Command[] = [];
  const mix = { gtc: 0, ioc: 0, cancel: 0, modify: 0 };
  let restingMin = Infinity;
  let restingMax = 0;
  let levelSum = 0;
  while (commands.length < count) {
    const r = rand();
    const m = mid();
    let cmd: Command;
    if (r < 0.09 || live.length === 0) {
      // GTC: mostly passive, 1 in 10 crosses by a few ticks.
      const side = rand() < 0.5 ? 'BUY' : 'SELL';
      const off = rand() < 0.1 ? -BigInt(int(4)) : offset();
      const price = side === 'BUY' ? m - off * TICK : m + off * TICK;
      cmd = { k: 0, order: { orderId: nextId++, accountId: account(), side, type: 'LIMIT', tif: 'GTC', price, qty: LOT * BigInt(1 + int(20)) } };
      mix.gtc++;
    } else if (r < 0.12) {
      const side = rand() < 0.5 ? 'BUY' : 'SELL';
      const price = side === 'BUY' ? m + BigInt(int(6)) * TICK : m - BigInt(int(6)) * TICK;
      cmd = { k: 0, order: { orderId: nextId++, accountId: account(), side, type: 'LIMIT', tif: 'IOC', price, qty: LOT * BigInt(1 + int(live.length > RESTING ? 40 : 6)) } };
      mix.ioc++;
    } else if (r < 0.18) {
      cmd = { k: 1, id: live[int(live.length)]! };
      mix.cancel++;
    } else {
      const id = live[int(live.length)]!;
      const o = book.openOrder(id)!;
      const q = rand();
      let change: ModifyOrder;
      if (q < 0.7) {
        // Move by a few ticks, towards the touch slightly more often (so some cross).
        const toward = rand() < 0.55;
        const d = BigInt(1 + int(8)) * TICK;
        let price = o.side === 'BUY' === toward ? o.price + d : o.price - d;
        if (price <= 0n) price = TICK;
        change = { newPrice: price };
      } else if (q < 0.85) {
        change = { newQty: o.qty > LOT ? o.qty - LOT : o.qty };
      } else {
        change = { newQty: o.qty + LOT };
      }
      cmd = { k: 2, id, change };
      mix.modify++;
    }
    commands.push(cmd);
    track(apply(book, cmd));
    restingMin = Math.min(restingMin, book.size);
    restingMax = Math.max(restingMax, book.size);
    if ((commands.length & 1023) === 0) {
      const d = book.depth();
      levelSum += d.bids.length + d.asks.length;
    }
  }
  return { initial, commands, mix, restingMin, restingMax, levelsAvg: levelSum / Math.floor(count / 1024), trades, events: eventCount };
}

function apply(book: OrderBook, c: Command): MatchEvent[] {
  switch (c.k) {
    case 0:
      return book.place(c.order, NOW);
    case 1:
      return book.cancel(c.id);
    case 2:
      return book.modify(c.id, c.change, NOW);
  }
}

function fresh(w: Workload): OrderBook {
  const book = new OrderBook(CONFIG);
  book.restore(w.initial);
  return book;
}

/** Replays the whole stream; returns elapsed ns and the event count (a checksum). */
function replay(w: Workload): { ns: bigint; events: number } {
  const book = fresh(w);
  const cmds = w.commands;
  let events = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < cmds.length; i++) events += apply(book, cmds[i]!).length;
  return { ns: process.hrtime.bigint() - t0, events };
}

function replayBaseline(w: Workload): bigint {
  const map = new Map<number, bigint>();
  for (const o of w.initial) map.set(o.orderId as number, o.qty);
  const cmds = w.commands;
  let sink = 0n;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < cmds.length; i++) {
    const c = cmds[i]!;
    const id = c.k === 0 ? (c.order.orderId as number) : c.id;
    const v = map.get(id) ?? 0n;
    sink ^= v;
    map.set(id, c.k === 0 ? c.order.qty : v);
  }
  const ns = process.hrtime.bigint() - t0;
  if (sink === -1n) console.log('unreachable');
  return ns;
}

type Kind = 'GTC' | 'IOC' | 'cancel' | 'modify';
const kindOf = (c: Command): Kind => (c.k === 0 ? (c.order.tif === 'IOC' ? 'IOC' : 'GTC') : c.k === 1 ? 'cancel' : 'modify');

interface Percentiles {
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

function percentiles(values: number[] | Float64Array): Percentiles {
  const a = Float64Array.from(values).sort();
  const q = (p: number) => a[Math.min(a.length - 1, Math.floor(a.length * p))]!;
  return { p50: q(0.5), p99: q(0.99), p999: q(0.999), max: a[a.length - 1]! };
}

/** Per-command latency: one hrtime pair around each command, overall and per kind. */
function latencies(w: Workload): { all: Percentiles; byKind: Map<Kind, Percentiles>; timer: number } {
  const book = fresh(w);
  const cmds = w.commands;
  const lat = new Float64Array(cmds.length);
  for (let i = 0; i < cmds.length; i++) {
    const t0 = process.hrtime.bigint();
    apply(book, cmds[i]!);
    lat[i] = Number(process.hrtime.bigint() - t0);
  }
  const timer = new Float64Array(100_000);
  for (let i = 0; i < timer.length; i++) {
    const t0 = process.hrtime.bigint();
    timer[i] = Number(process.hrtime.bigint() - t0);
  }
  const groups = new Map<Kind, number[]>();
  for (let i = 0; i < cmds.length; i++) {
    const k = kindOf(cmds[i]!);
    let g = groups.get(k);
    if (g === undefined) groups.set(k, (g = []));
    g.push(lat[i]!);
  }
  const byKind = new Map<Kind, Percentiles>();
  for (const k of ['GTC', 'IOC', 'cancel', 'modify'] as const) byKind.set(k, percentiles(groups.get(k) ?? [0]));
  return { all: percentiles(lat), byKind, timer: percentiles(timer).p50 };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;

export async function run(): Promise<string> {
  const w = generate();
  const n = w.commands.length;
  // Warm-up (JIT), then alternating timed replays of the engine and the baseline.
  for (let i = 0; i < 2; i++) {
    replay(w);
    replayBaseline(w);
  }
  const engine: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < 7; i++) {
    const r = replay(w);
    if (r.events !== w.events) throw new Error(`replay diverged: ${r.events} events, generator saw ${w.events}`);
    engine.push(n / (Number(r.ns) / 1e9));
    base.push(n / (Number(replayBaseline(w)) / 1e9));
  }
  const lat = latencies(w);
  const pct = (x: number) => ((100 * x) / n).toFixed(1);
  const row = (name: string, p: Percentiles) => `| ${name} | ${fmt(p.p50)} | ${fmt(p.p99)} | ${fmt(p.p999)} | ${fmt(p.max)} |`;
  return [
    '### Matching core (src/domain/matching), exchange-core style mix',
    '',
    `${fmt(n)} precomputed commands: ${pct(w.mix.gtc)}% GTC, ${pct(w.mix.ioc)}% IOC, ${pct(w.mix.cancel)}% cancel, ` +
      `${pct(w.mix.modify)}% modify (70% price moves of 1 to 8 ticks, 30% quantity changes), ${fmt(w.trades)} trades; ` +
      `${w.restingMin} to ${w.restingMax} resting orders over ~${Math.round(w.levelsAvg)} price levels; bigint prices and quantities; ` +
      'one thread, every command returns its events as an array. Seven replays of the whole stream, each on a fresh book, alternating with the baseline.',
    '',
    '| case | ops/s (median) | ops/s (best) | ratio to baseline (medians) |',
    '|---|---:|---:|---:|',
    `| baseline: one Map get + set per command, same ids | ${fmt(median(base))} | ${fmt(Math.max(...base))} | 1.000 |`,
    `| OrderBook | ${fmt(median(engine))} | ${fmt(Math.max(...engine))} | ${(median(engine) / median(base)).toFixed(3)} |`,
    '',
    `Latency per command in ns (one \`process.hrtime.bigint()\` pair around each command; the pair alone costs ~${fmt(lat.timer)} ns and is included):`,
    '',
    '| command | p50 | p99 | p99.9 | max |',
    '|---|---:|---:|---:|---:|',
    row('all', lat.all),
    ...[...lat.byKind].map(([k, p]) => row(k, p)),
  ].join('\n');
}
