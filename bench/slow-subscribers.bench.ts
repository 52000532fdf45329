import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { Pool } from 'undici';
import { spawnServer } from './harness.ts';
import WebSocket from 'ws';
import type { SignedIn } from '../test/helpers/auth.ts';
import { dropSchema, uniqueName } from '../test/helpers/infra.ts';
import { freePort } from '../test/helpers/redisServer.ts';
import { trader } from '../test/helpers/trading.ts';

/**
 * Issue 23: two SSE and two graphql-ws subscribers of orderBookUpdates that never read
 * their sockets, under about 1,000 orders/s. The server runs as a child process
 * (src/main.ts, production, PostgreSQL and Redis); orders (session-authenticated, BUY and
 * SELL crossing at one price) and GET /healthz are sent open loop from this process. Two
 * stages of BENCH_STAGE_SECONDS each, in the same run: without the slow subscribers (the
 * baseline), then with them. Latency is from each request's scheduled send time. After the
 * second stage the slow subscribers read again and report how their stream ended.
 *
 * Knobs: BENCH_ORDER_RATE (1000/s), BENCH_HEALTHZ_RATE (200/s), BENCH_STAGE_SECONDS (60),
 * BENCH_MAX_PENDING_EVENTS (5000, the server's default), BENCH_WS_SUBSCRIPTIONS (1).
 *
 * The defaults are issue 23's scenario: one subscription per connection, the server's own
 * queue bound. One thing that would end a never-reading subscriber first is moved out of
 * its way: the server's STREAM_IDLE_TIMEOUT_MS is 10 minutes (a graphql-ws socket that
 * answers no ping is otherwise dropped after 30 s, before its queue fills). A subscriber's
 * queue only grows once its socket's kernel buffers are full (several MB on loopback), which
 * the book deltas of about 1,000 orders/s do within the stage. On a machine that sustains
 * less, BENCH_WS_SUBSCRIPTIONS (up to the per-connection cap of 32) fills a graphql-ws
 * socket's buffers that many times faster, and a smaller BENCH_MAX_PENDING_EVENTS reaches the
 * bound sooner; bench/notes.md has a run of each.
 */
const ORDER_RATE = Number(process.env.BENCH_ORDER_RATE ?? 1000);
const HEALTHZ_RATE = Number(process.env.BENCH_HEALTHZ_RATE ?? 200);
const STAGE_SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 60);
const MAX_PENDING_EVENTS = Number(process.env.BENCH_MAX_PENDING_EVENTS ?? 5000);
const WS_SUBSCRIPTIONS = Number(process.env.BENCH_WS_SUBSCRIPTIONS ?? 1);
const BOOK = 'subscription { orderBookUpdates(symbol: "BTC-USDC") { symbol sequence bids { price qty } asks { price qty } } }';

interface Latencies {
  ok: number[];
  failed: number;
  shed: number;
}

const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

/** Sends `total` requests at `rate`/s from `start`, each timed from its scheduled time; at most 2048 in flight. */
async function openLoop(rate: number, seconds: number, send: (i: number) => Promise<boolean>): Promise<Latencies> {
  const out: Latencies = { ok: [], failed: 0, shed: 0 };
  const total = Math.round(rate * seconds);
  const start = performance.now() + 50;
  const inflight = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    const at = start + (i * 1000) / rate;
    const wait = at - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (inflight.size >= 2048) {
      out.shed++;
      continue;
    }
    const p: Promise<void> = send(i).then(
      (ok) => void (ok ? out.ok.push(performance.now() - at) : out.failed++),
      () => void out.failed++,
    );
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  }
  await Promise.all(inflight);
  out.ok.sort((a, b) => a - b);
  return out;
}

/** Opens the subscription and stops reading once the stream has started. */
async function pausedSse(url: string): Promise<{ socket: Socket; text: () => string; closed: () => boolean }> {
  const { port } = new URL(url);
  const body = JSON.stringify({ query: BOOK });
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  let closed = false;
  socket.on('data', (d) => (text += String(d)));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  await new Promise((r) => socket.once('connect', r));
  socket.write(`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  while (!text.includes(':\n\n')) await new Promise((r) => setTimeout(r, 10));
  socket.pause();
  return { socket, text: () => text, closed: () => closed };
}

async function pausedWs(url: string): Promise<{ ws: WebSocket; text: () => string; closed: () => number | undefined }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  let text = '';
  let closed: number | undefined;
  ws.on('message', (d) => (text += `${String(d)}\n`));
  ws.on('close', (code) => (closed = code));
  ws.on('error', () => undefined);
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ type: 'connection_init', payload: {} }));
  while (!text.includes('connection_ack')) await new Promise((r) => setTimeout(r, 10));
  for (let i = 0; i < WS_SUBSCRIPTIONS; i++) ws.send(JSON.stringify({ id: `book${i}`, type: 'subscribe', payload: { query: BOOK } }));
  await new Promise((r) => setTimeout(r, 200));
  ws.pause();
  return { ws, text: () => text, closed: () => closed };
}

export async function run(): Promise<string> {
  const schema = uniqueName('benchslow');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(path.resolve(import.meta.dirname, '..'), schema, port, {
    STREAM_IDLE_TIMEOUT_MS: '600000',
    SUBSCRIBER_MAX_PENDING_EVENTS: String(MAX_PENDING_EVENTS),
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  try {
    // Up to 2 minutes: on the shared machine a start (migrations included) has taken over 30 s.
    for (let i = 0; i < 1200 && !(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
    const buyer: SignedIn = await trader(url, { USDC: '100000000' });
    const seller: SignedIn = await trader(url, { BTC: '10000' });
    const pool = new Pool(url, { connections: 64 });
    // Its own connections: /healthz never waits behind an order in the client's pool.
    const probe = new Pool(url, { connections: 16 });
    let n = 0;
    const order = async (): Promise<boolean> => {
      const i = n++;
      const who = i % 2 === 0 ? buyer : seller;
      const res = await pool.request({
        method: 'POST',
        path: '/v1/orders',
        headers: { 'content-type': 'application/json', authorization: who.auth.authorization as string },
        // BUYs rest at 30000-30002 and each SELL at 29990 takes the best of them: the book churns
        // while the resting count stays near zero, far under the 1,000 open-order cap.
        body: JSON.stringify({ order: { symbol: 'BTC-USDC', side: i % 2 === 0 ? 'BUY' : 'SELL', baseQty: '0.001', limitGtc: { price: i % 2 === 0 ? String(30000 + (i % 3)) : '29990' } } }),
      });
      await res.body.dump();
      return res.statusCode === 200;
    };
    const healthz = async (): Promise<boolean> => {
      const res = await probe.request({ method: 'GET', path: '/healthz' });
      await res.body.dump();
      return res.statusCode === 200;
    };
    const stage = async () => {
      const [orders, health] = await Promise.all([openLoop(ORDER_RATE, STAGE_SECONDS, order), openLoop(HEALTHZ_RATE, STAGE_SECONDS, healthz)]);
      return { orders, health };
    };
    await openLoop(200, 3, order);
    const baseline = await stage();
    const sse = [await pausedSse(url), await pausedSse(url)];
    const ws = [await pausedWs(url), await pausedWs(url)];
    const loaded = await stage();
    for (const s of sse) s.socket.resume();
    for (const s of ws) s.ws.resume();
    // Reading again, each drains what its buffers held; its stream's end is the last of it.
    const wsEnded = (text: string) => [...text.matchAll(/"type":"(?:error|complete)","id"|"id":"book\d+","type":"(?:error|complete)"/g)].length;
    for (let i = 0; i < 300; i++) {
      const done = sse.every((s) => s.closed() || s.text().includes('event: complete')) && ws.every((s) => s.closed() !== undefined || wsEnded(s.text()) >= WS_SUBSCRIPTIONS);
      if (done) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const alive = await fetch(`${url}/healthz`).then((r) => r.status, () => 0);
    const how = (text: string, closed: string | undefined) => (text.includes('SUBSCRIBER_TOO_SLOW') ? 'cut off with SUBSCRIBER_TOO_SLOW' : closed ? `dropped (${closed})` : 'still open');
    const tooSlow = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.includes('SUBSCRIBER_TOO_SLOW'))
        .map((line) => (JSON.parse(line) as { id: string }).id);
    const endings = [
      ...sse.map((s) => `SSE: ${how(s.text(), s.closed() ? 'connection closed' : undefined)}`),
      ...ws.map((s) => {
        const cut = new Set(tooSlow(s.text())).size;
        return `graphql-ws socket: ${cut} of its ${WS_SUBSCRIPTIONS} subscriptions cut off with SUBSCRIBER_TOO_SLOW, ${WS_SUBSCRIPTIONS - cut} not (${s.closed() !== undefined ? `socket closed ${s.closed()}` : 'socket still open'})`;
      }),
    ];
    for (const s of sse) s.socket.destroy();
    for (const s of ws) s.ws.terminate();
    await pool.close();
    await probe.close();
    const row = (label: string, what: string, l: Latencies, rate: number) =>
      `| ${label} | ${what} | ${rate} | ${l.ok.length} | ${quantile(l.ok, 0.5).toFixed(1)} | ${quantile(l.ok, 0.99).toFixed(1)} | ${(l.ok[l.ok.length - 1] ?? NaN).toFixed(1)} | ${l.failed} / ${l.shed} |`;
    const ratio = (a: Latencies, b: Latencies) => (quantile(a.ok, 0.99) / quantile(b.ok, 0.99)).toFixed(2);
    return [
      `### Subscribers that never read, ${ORDER_RATE} orders/s offered (bench/slow-subscribers.bench.ts)`,
      '',
      `Server: a child process (src/main.ts, NODE_ENV=production) on PostgreSQL and Redis; stream limits as the defaults but SUBSCRIBER_MAX_PENDING_EVENTS=${MAX_PENDING_EVENTS} and STREAM_IDLE_TIMEOUT_MS=600000, so the queue's bound is what ends a never-reading subscriber. Orders (session-authenticated, BUYs of 0.001 BTC resting at 30000-30002, SELLs at 29990 taking them) at ${ORDER_RATE}/s and GET /healthz at ${HEALTHZ_RATE}/s, open loop from the bench process, ${STAGE_SECONDS} s per stage; latency from the scheduled send time. Stage 2 adds 2 SSE connections (one orderBookUpdates subscription each) and 2 graphql-ws sockets (${WS_SUBSCRIPTIONS} orderBookUpdates subscriptions each) that never read.`,
      '',
      '| stage | requests | offered/s | ok | p50 ms | p99 ms | max ms | failed / shed |',
      '|---|---|---:|---:|---:|---:|---:|---|',
      row('1: no slow subscribers', 'GET /healthz', baseline.health, HEALTHZ_RATE),
      row('1: no slow subscribers', 'POST /v1/orders', baseline.orders, ORDER_RATE),
      row(`2: 2 SSE + 2 graphql-ws (${WS_SUBSCRIPTIONS} each) never reading`, 'GET /healthz', loaded.health, HEALTHZ_RATE),
      row(`2: 2 SSE + 2 graphql-ws (${WS_SUBSCRIPTIONS} each) never reading`, 'POST /v1/orders', loaded.orders, ORDER_RATE),
      '',
      `p99 stage 2 / stage 1: /healthz ${ratio(loaded.health, baseline.health)}, orders ${ratio(loaded.orders, baseline.orders)}. After stage 2 the server ${exited === undefined && alive === 200 ? 'is alive (/healthz 200)' : `is DOWN (exit ${exited}, /healthz ${alive})`}; the slow subscribers, reading again: ${endings.join('; ')}.`,
    ].join('\n');
  } finally {
    child.kill('SIGTERM');
    if (exited === undefined) await new Promise((r) => child.once('exit', r));
    await dropSchema(schema);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await run());
