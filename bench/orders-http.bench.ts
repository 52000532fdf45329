import { spawn, type ChildProcess } from 'node:child_process';
import { createPrivateKey, randomBytes, sign as ed25519Sign, type KeyObject } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Pool } from 'undici';
import { api, liftLimits, newKeyPair, onboard, signHeaders, type ClientKey, type SignedIn } from '../test/helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../test/helpers/env.ts';
import { TEST_OPERATOR_TOKEN, dropSchema, startTestApp, uniqueName } from '../test/helpers/infra.ts';
import { credit } from '../test/helpers/trading.ts';
import { seededRandom, serverNodeArgs } from './harness.ts';

/**
 * Issue 5 (b): POST /v1/orders end to end over HTTP, with Ed25519-signed requests, at fixed
 * offered rates (open loop), against GET /healthz of the same server at the same rates, on
 * the machine's PostgreSQL and Redis.
 *
 * The server runs as a child process (`node --import tsx src/main.ts`, as `npm start` does)
 * on a schema and key prefix of its own, dropped at the end; BENCH_IN_PROCESS=1 runs it in
 * this process instead (startTestApp), where server and load generator share one event loop.
 *
 * Load: two accounts, one sending BUYs and one SELLs, alternating, limit GTC on BTC-USDC at
 * 30000 ± 0..2 ticks of 0.01, 0.001..0.003 BTC, each with its own clientOrderId (which makes
 * every body, so every signature, unique for the replay guard). A BUY is priced at or above
 * 30000 and a SELL at or below it, so any resting order is crossed by the next opposite one:
 * about half the orders rest and half trade against them, and the book stays a few orders
 * deep. Every request is signed before its stage starts, with its scheduled send time as
 * X-API-TIMESTAMP, so signing costs the generator nothing while it measures.
 *
 * Latency is measured open loop, from each request's scheduled send time to the end of its
 * response, so a server (or generator) falling behind shows up as latency rather than as a
 * lower offered rate (no coordinated omission).
 *
 * Each rate also runs the floor (issue 29): a bare loop of single-row INSERT commits on the
 * same PostgreSQL at the same rate, so order entry reads against what any durable
 * acknowledgement costs on this machine in the same minute.
 *
 * Knobs: BENCH_RATES (comma-separated req/s), BENCH_FLOOR_CONNECTIONS (16), BENCH_STAGE_SECONDS, BENCH_CONNECTIONS, BENCH_MAX_IN_FLIGHT, BENCH_IN_PROCESS=1,
 * BENCH_SERVER_NODE_ARGS (extra node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"),
 * BENCH_SERVER_ROOT (another checkout whose server to load, for A/B runs).
 */

const RATES = (process.env.BENCH_RATES ?? '100,250,500,1000,1500,2500,3000,5000').split(',').map(Number);
/** Connections of the bare commit loop (the server's own pool is of the same order). */
const FLOOR_CONNECTIONS = Number(process.env.BENCH_FLOOR_CONNECTIONS ?? 16);
const BARE = 'bare INSERT commit';
const STAGE_SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 4);
/** After the last scheduled send, how long outstanding responses are awaited. */
const DRAIN_MS = 8_000;
/** Concurrent keep-alive connections: HTTP/1.1 answers one request per connection at a time. */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 512);
/**
 * Requests in flight (sent or queued in the client pool) beyond which a scheduled request is
 * not sent but counted as shed: a saturated server then costs a bounded drain, not minutes.
 */
const MAX_IN_FLIGHT = Number(process.env.BENCH_MAX_IN_FLIGHT ?? 2048);
const IN_PROCESS = process.env.BENCH_IN_PROCESS === '1';
const SYMBOL = 'BTC-USDC';
const HUGE = '10000000';

interface Prepared {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface StageResult {
  label: string;
  offered: number;
  sent: number;
  ok: number;
  statuses: Map<string, number>;
  /** Successful responses per second, over the span from the first scheduled send to the last response. */
  achieved: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Worst delay of an actual send behind its schedule: large means the generator could not keep up. */
  maxSendLagMs: number;
  /** The generator's own event-loop delay, p99: large means its numbers include its own stalls. */
  loopDelayP99Ms: number;
  cpu: CpuShare;
  /** CPU of server, PostgreSQL and Redis together per successful request, µs. */
  cpuPerOkUs: number;
  /** The server's read and write system calls per successful request. */
  syscallsPerOk: { reads: number; writes: number };
  /** Projection lag over the stage (acknowledgement to read tables), from the server's /metrics histogram. */
  lag?: { p50: number; p99: number; count: number };
}

interface CpuShare {
  server: number;
  generator: number;
  postgres: number;
  redis: number;
}

interface Server {
  url: string;
  pid: number;
  schema: string;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------
// Server under test

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${stderr()}`);
    const ok = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not become ready within 60 s:\n${stderr()}`);
}

async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function startChildServer(): Promise<Server> {
  const schema = uniqueName('bench');
  const keyPrefix = `${schema}:`;
  const port = await freePort();
  // BENCH_SERVER_ROOT runs another checkout's server under this load generator, for A/B runs.
  const root = process.env.BENCH_SERVER_ROOT ?? path.resolve(import.meta.dirname, '..');
  let err = '';
  const extraArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // After npm start's own flags, so a knob given here wins (the script stays last).
  const args = serverNodeArgs(root);
  args.splice(args.length - 1, 0, ...extraArgs);
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: keyPrefix,
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      PAGE_TOKEN_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      // The helpers give each signed-in wallet its own X-Forwarded-For address.
      TRUST_PROXY: 'true',
      // An A/B knob: how long the projector lets entries gather (the server's default otherwise).
      ...(process.env.BENCH_PROJECTION_DELAY_MS ? { PROJECTION_DELAY_MS: process.env.BENCH_PROJECTION_DELAY_MS } : {}),
    },
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-20_000);
  });
  const url = `http://127.0.0.1:${port}`;
  const cleanup = async () => {
    await dropSchema(schema).catch(() => undefined);
    await deleteKeys(keyPrefix).catch(() => undefined);
  };
  try {
    await waitReady(url, child, () => err);
  } catch (e) {
    child.kill('SIGKILL');
    await cleanup();
    throw e;
  }
  return {
    url,
    pid: child.pid as number,
    schema,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      await cleanup();
      if (err.trim()) console.log(`server stderr (last lines):\n${err.split("\n").slice(-60).join("\n")}`);
    },
  };
}

async function startServer(): Promise<Server> {
  if (!IN_PROCESS) return startChildServer();
  const app = await startTestApp({ env: { LOG_LEVEL: 'warn' } });
  return { url: app.url, pid: process.pid, schema: (app.database as unknown as { schema: string }).schema, close: () => app.close() };
}

// ---------------------------------------------------------------------------------------
// CPU accounting from /proc (Linux): shares of one core, per process group of interest

const CLK_TCK = 100;

async function ticksOf(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Ticks of every process with one of `names`, by pid (processes come and go during a stage). */
async function ticksByName(names: string[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  let entries: string[] = [];
  try {
    entries = await readdir('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const comm = await readFile(`/proc/${e}/comm`, 'utf8').catch(() => '');
    if (names.includes(comm.trim())) out.set(Number(e), await ticksOf(Number(e)));
  }
  return out;
}

/**
 * The server's read and write system calls so far (/proc/<pid>/io): each socket write on
 * this VM costs tens of microseconds, and their count does not move with the machine's load.
 */
async function syscallsOf(pid: number): Promise<{ reads: number; writes: number }> {
  try {
    const io = await readFile(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(/^(\w+): (\d+)$/m.exec(io.split('\n').find((l) => l.startsWith(`${name}:`)) ?? '')?.[2] ?? NaN);
    return { reads: field('syscr'), writes: field('syscw') };
  } catch {
    return { reads: NaN, writes: NaN };
  }
}

async function cpuSnapshot(serverPid: number) {
  return {
    at: performance.now(),
    syscalls: await syscallsOf(serverPid),
    server: await ticksOf(serverPid),
    generator: await ticksOf(process.pid),
    postgres: await ticksByName(['postgres']),
    redis: await ticksByName(['redis-server']),
  };
}

/** CPU used between two snapshots by processes alive at the second (one that exited in between is not counted). */
function groupDelta(a: Map<number, number>, b: Map<number, number>): number {
  let total = 0;
  for (const [pid, ticks] of b) total += Math.max(0, ticks - (a.get(pid) ?? 0));
  return total;
}

function cpuShare(a: Awaited<ReturnType<typeof cpuSnapshot>>, b: Awaited<ReturnType<typeof cpuSnapshot>>): CpuShare {
  const seconds = (b.at - a.at) / 1000;
  const share = (x: number, y: number) => (y - x) / CLK_TCK / seconds;
  return {
    server: share(a.server, b.server),
    generator: IN_PROCESS ? 0 : share(a.generator, b.generator),
    postgres: share(0, groupDelta(a.postgres, b.postgres)),
    redis: share(0, groupDelta(a.redis, b.redis)),
  };
}

// ---------------------------------------------------------------------------------------
// Signing: node:crypto (the server verifies with it too); checked against the test helper

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function signerFor(key: ClientKey): (method: string, pathWithQuery: string, body: string, timestamp: string) => Record<string, string> {
  const secret: KeyObject = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, key.secretKey]), format: 'der', type: 'pkcs8' });
  return (method, pathWithQuery, body, timestamp) => ({
    'x-api-key-id': key.keyId,
    'x-api-timestamp': timestamp,
    'x-api-signature': ed25519Sign(null, Buffer.from(`${timestamp}\n${method}\n${pathWithQuery}\n${body}`, 'utf8'), secret).toString('base64'),
  });
}

// ---------------------------------------------------------------------------------------
// Accounts

interface Trader {
  who: SignedIn;
  key: ClientKey;
  sign: ReturnType<typeof signerFor>;
}

async function override(url: string, pool: string, target: { accountId: string } | { apiKeyId: string }) {
  const r = await api(url, 'PUT', '/operator/v1/rate-limit-overrides', { pool, ...target, quotaWeight: HUGE, periodMs: '1000', burstWeight: HUGE }, {
    authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
  });
  if (r.status !== 200) throw new Error(`override ${pool}: ${r.status} ${JSON.stringify(r.body)}`);
}

async function makeTrader(url: string, funds: Record<string, string>): Promise<Trader> {
  const who = await onboard(url);
  await liftLimits(url, who.rootAccountId, ['TRADING_PLACE', 'TRADING_CANCEL', 'ACCOUNT_SECURITY', 'ACCOUNT_ADMIN']);
  for (const pool of ['TRADING_PLACE', 'TRADING_CANCEL']) await override(url, pool, { accountId: who.rootAccountId });
  for (const [asset, amount] of Object.entries(funds)) await credit(url, who.rootAccountId, asset, amount);
  const policy = await api(url, 'POST', '/v1/auth/api-policies', { name: 'bench-trade', permissions: ['TRADE', 'READ'] }, who.auth);
  if (policy.status !== 200) throw new Error(`policy: ${policy.status} ${JSON.stringify(policy.body)}`);
  const pair = newKeyPair();
  const created = await api(
    url,
    'POST',
    '/v1/auth/api-keys',
    { label: 'bench', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId },
    who.auth,
  );
  if (created.status !== 200) throw new Error(`api key: ${created.status} ${JSON.stringify(created.body)}`);
  const key: ClientKey = { keyId: created.body.apiKey.keyId, ...pair };
  // The API_KEY scope is charged besides the account's: lift it too.
  for (const pool of ['TRADING_PLACE', 'TRADING_CANCEL']) await override(url, pool, { apiKeyId: key.keyId });
  const sign = signerFor(key);
  // Ed25519 is deterministic: the fast signer must produce exactly what the helper does.
  const ts = String(Date.now());
  const mine = sign('POST', '/v1/orders', '{"x":1}', ts);
  const helper = signHeaders(key, 'POST', '/v1/orders', '{"x":1}', { timestamp: ts });
  if (mine['x-api-signature'] !== helper['x-api-signature']) throw new Error('node:crypto signature differs from the helper’s');
  return { who, key, sign };
}

// ---------------------------------------------------------------------------------------
// Workload

const MID_CENTS = 3_000_000;
const price = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** Orders for a stage at `rate`, each timestamped with (about) the time it is scheduled to go. */
function orderRequests(buyer: Trader, seller: Trader, n: number, rate: number, tag: string, seed: number): Prepared[] {
  const random = seededRandom(seed);
  const t0 = Date.now();
  const out: Prepared[] = [];
  for (let i = 0; i < n; i++) {
    const buy = i % 2 === 0;
    const ticks = Math.floor(random() * 3);
    const qty = `0.00${1 + Math.floor(random() * 3)}`;
    const body = JSON.stringify({
      order: {
        symbol: SYMBOL,
        side: buy ? 'BUY' : 'SELL',
        baseQty: qty,
        clientOrderId: `${tag}-${i}`,
        limitGtc: { price: price(buy ? MID_CENTS + ticks : MID_CENTS - ticks) },
      },
    });
    const t = buy ? buyer : seller;
    const timestamp = String(t0 + Math.floor((i * 1000) / rate));
    out.push({ method: 'POST', path: '/v1/orders', body, headers: { 'content-type': 'application/json', ...t.sign('POST', '/v1/orders', body, timestamp) } });
  }
  return out;
}

function healthRequests(n: number): Prepared[] {
  return Array.from({ length: n }, () => ({ method: 'GET' as const, path: '/healthz', headers: {} }));
}

async function cancelAll(url: string, t: Trader): Promise<number> {
  const body = JSON.stringify({ symbol: SYMBOL });
  const r = await fetch(`${url}/v1/orders/cancel-all`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...t.sign('POST', '/v1/orders/cancel-all', body, String(Date.now())) },
    body,
  });
  const out = (await r.json()) as { canceledCount?: number };
  if (r.status !== 200) throw new Error(`cancel-all: ${r.status} ${JSON.stringify(out)}`);
  return out.canceledCount ?? 0;
}

// ---------------------------------------------------------------------------------------
// Open-loop load generator

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** The server's trading_projection_lag_seconds histogram: cumulative counts per upper bound (seconds). */
async function lagHistogram(url: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const buckets = new Map<number, number>();
  for (const m of text.matchAll(/^trading_projection_lag_seconds_bucket\{le="([^"]+)"\} (\d+)/gm)) buckets.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2]));
  return buckets;
}

/** A quantile of the observations between two histogram readings, interpolated within its bucket (ms). */
function lagBetween(a: Map<number, number>, b: Map<number, number>): { p50: number; p99: number; count: number } {
  const bounds = [...b.keys()].sort((x, y) => x - y);
  const cum = bounds.map((le) => (b.get(le) ?? 0) - (a.get(le) ?? 0));
  const count = cum.at(-1) ?? 0;
  const q = (p: number) => {
    const rank = (p / 100) * count;
    for (let i = 0; i < bounds.length; i++) {
      if ((cum[i] as number) >= rank) {
        const lo = i === 0 ? 0 : (bounds[i - 1] as number);
        const hi = bounds[i] as number;
        if (!Number.isFinite(hi)) return lo * 1000;
        const below = i === 0 ? 0 : (cum[i - 1] as number);
        const inBucket = (cum[i] as number) - below;
        return (lo + (inBucket > 0 ? ((rank - below) / inBucket) * (hi - lo) : 0)) * 1000;
      }
    }
    return NaN;
  };
  return { p50: q(50), p99: q(99), count };
}

/** Sends the i-th request of a stage and answers its status and body. */
type Sender = (i: number, signal: AbortSignal) => Promise<{ statusCode: number; text: string }>;

function httpSender(pool: Pool, requests: Prepared[]): Sender {
  return async (i, signal) => {
    const r = requests[i] as Prepared;
    const res = await pool.request({ method: r.method, path: r.path, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}), signal });
    return { statusCode: res.statusCode, text: await res.body.text() };
  };
}

/**
 * The floor under any durable acknowledgement on this machine (issue 29): one single-row
 * INSERT, committed on its own, on the same PostgreSQL, sent from this process over a pool
 * of connections, at the same offered rate as the orders.
 */
function bareCommitSender(db: pg.Pool, table: string): Sender {
  return async (i) => {
    await db.query(`INSERT INTO ${table} (n, at) VALUES ($1, now())`, [i]);
    return { statusCode: 200, text: '' };
  };
}

async function openLoop(label: string, total: number, send: Sender, rate: number, serverPid: number, metricsUrl?: string): Promise<StageResult> {
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  const count = (k: string) => statuses.set(k, (statuses.get(k) ?? 0) + 1);
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  const interval = 1000 / rate;
  let maxSendLagMs = 0;
  let outstanding = 0;
  let sent = 0;
  let lastDone = 0;
  let ok = 0;
  const lagBefore = metricsUrl ? await lagHistogram(metricsUrl) : undefined;
  const before = await cpuSnapshot(serverPid);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const start = performance.now() + 5;

  const fire = (i: number, scheduled: number) => {
    if (outstanding >= MAX_IN_FLIGHT) {
      count(`shed (${MAX_IN_FLIGHT} in flight)`);
      return;
    }
    outstanding++;
    sent++;
    maxSendLagMs = Math.max(maxSendLagMs, performance.now() - scheduled);
    send(i, abort.signal)
      .then(({ statusCode, text }) => {
        const done = performance.now();
        lastDone = Math.max(lastDone, done);
        if (statusCode === 200) {
          ok++;
          latencies.push(done - scheduled);
          count('200');
        } else {
          let code = '';
          try {
            code = String((JSON.parse(text) as { code?: string }).code ?? '');
          } catch {
            // not a problem body
          }
          count(`${statusCode}${code ? ` ${code}` : ''}`);
        }
      })
      .catch((err: unknown) => {
        count(abort.signal.aborted ? `no answer within ${DRAIN_MS / 1000} s` : `error ${(err as { code?: string }).code ?? String(err)}`);
      })
      .finally(() => {
        outstanding--;
      });
  };

  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * interval <= now) {
        fire(next, start + next * interval);
        next++;
      }
      if (next < total) setTimeout(tick, Math.max(0, Math.min(1, start + next * interval - performance.now())));
      else resolve();
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });
  const sendEnd = performance.now();
  while (outstanding > 0 && performance.now() - sendEnd < DRAIN_MS) await new Promise((r) => setTimeout(r, 5));
  if (outstanding > 0) {
    abort.abort();
    while (outstanding > 0) await new Promise((r) => setTimeout(r, 5));
  }
  loop.disable();
  const after = await cpuSnapshot(serverPid);
  // Entries of the stage still being projected when it ends belong to it.
  if (metricsUrl) await new Promise((r) => setTimeout(r, 200));
  const lag = metricsUrl && lagBefore ? lagBetween(lagBefore, await lagHistogram(metricsUrl)) : undefined;
  const cpu = cpuShare(before, after);
  latencies.sort((a, b) => a - b);
  const span = (lastDone - start) / 1000;
  return {
    label,
    offered: rate,
    sent,
    ok,
    statuses,
    achieved: span > 0 ? ok / span : 0,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    maxSendLagMs,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    cpu,
    cpuPerOkUs: ok > 0 ? ((cpu.server + cpu.postgres + cpu.redis) * ((after.at - before.at) / 1000) * 1e6) / ok : NaN,
    syscallsPerOk: { reads: (after.syscalls.reads - before.syscalls.reads) / ok, writes: (after.syscalls.writes - before.syscalls.writes) / ok },
    ...(lag ? { lag } : {}),
  };
}

// ---------------------------------------------------------------------------------------

/** What the run left in the database: orders, fills, and whether every asset's balances still sum to zero. */
async function databaseFacts(schema: string): Promise<string> {
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    const q = async (sql: string) => (await client.query(sql)).rows as Record<string, string>[];
    const [orders] = await q(`SELECT count(*) AS n FROM "${schema}"."Order"`);
    const [trades] = await q(`SELECT count(DISTINCT "matchId") AS n FROM "${schema}"."Trade"`);
    const sums = await q(`SELECT "assetId" AS a, sum(available + held)::text AS s FROM "${schema}"."Balance" GROUP BY "assetId"`);
    const unbalanced = sums.filter((r) => Number(r.s) !== 0);
    return `${orders?.n} orders and ${trades?.n} matches committed over the run; balances per asset sum to zero: ${unbalanced.length === 0 ? 'yes' : `NO (${JSON.stringify(unbalanced)})`}.`;
  } finally {
    await client.end();
  }
}

async function postgresFacts(): Promise<string> {
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    const r = await client.query<{ v: string; f: string; s: string }>(
      "SELECT current_setting('server_version') AS v, current_setting('fsync') AS f, current_setting('synchronous_commit') AS s",
    );
    const facts = r.rows[0] as { v: string; f: string; s: string };
    return `PostgreSQL ${facts.v} (fsync=${facts.f}, synchronous_commit=${facts.s})`;
  } finally {
    await client.end();
  }
}

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const pct = (x: number) => `${Math.round(x * 100)}%`;

function row(r: StageResult): string {
  const errors = [...r.statuses.entries()].filter(([k]) => k !== '200').map(([k, v]) => `${v} × ${k}`).join(', ') || '0';
  return `| ${r.label} | ${r.offered.toLocaleString('en-US')} | ${r.sent.toLocaleString('en-US')} | ${Math.round(r.achieved).toLocaleString('en-US')} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${ms(r.max)} | ${ms(r.maxSendLagMs)} / ${ms(r.loopDelayP99Ms)} | ${errors} | ${pct(r.cpu.server)} / ${IN_PROCESS ? '(same)' : pct(r.cpu.generator)} / ${pct(r.cpu.postgres)} / ${pct(r.cpu.redis)} | ${Math.round(r.cpuPerOkUs).toLocaleString('en-US')} | ${r.syscallsPerOk.reads.toFixed(1)} / ${r.syscallsPerOk.writes.toFixed(1)} | ${r.lag ? `${ms(r.lag.p50)} / ${ms(r.lag.p99)}` : ''} |`;
}

export async function run(): Promise<string> {
  const facts = await postgresFacts();
  const server = await startServer();
  const pool = new Pool(server.url, { connections: CONNECTIONS, pipelining: 1, keepAliveTimeout: 60_000 });
  const floor = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: FLOOR_CONNECTIONS });
  const floorTable = `"${server.schema}"."BenchBareCommit"`;
  const results: StageResult[] = [];
  const canceled: number[] = [];
  let ledger = '';
  try {
    const buyer = await makeTrader(server.url, { USDC: '1000000000' });
    const seller = await makeTrader(server.url, { BTC: '100000' });

    // Warm-up (not reported): JIT, connection pools, balance and key caches.
    await openLoop('warm-up', 300, httpSender(pool, healthRequests(300)), 300, server.pid);
    const warm = await openLoop('warm-up', 300, httpSender(pool, orderRequests(buyer, seller, 300, 150, 'w', 1)), 150, server.pid);
    await floor.query(`CREATE TABLE ${floorTable} (id bigserial PRIMARY KEY, n integer NOT NULL, at timestamptz NOT NULL)`);
    await openLoop('warm-up', 300, bareCommitSender(floor, floorTable), 300, server.pid);
    if (warm.ok === 0) throw new Error(`no order was accepted during warm-up: ${JSON.stringify([...warm.statuses])}`);
    await cancelAll(server.url, buyer);
    await cancelAll(server.url, seller);

    for (const [i, rate] of RATES.entries()) {
      const n = Math.round(rate * STAGE_SECONDS);
      results.push(await openLoop('GET /healthz', n, httpSender(pool, healthRequests(n)), rate, server.pid));
      await new Promise((r) => setTimeout(r, 250));
      results.push(await openLoop(BARE, n, bareCommitSender(floor, floorTable), rate, server.pid));
      await new Promise((r) => setTimeout(r, 250));
      const orders = orderRequests(buyer, seller, n, rate, `s${i}`, 100 + i);
      results.push(await openLoop('POST /v1/orders', n, httpSender(pool, orders), rate, server.pid, server.url));
      canceled.push((await cancelAll(server.url, buyer)) + (await cancelAll(server.url, seller)));
      await new Promise((r) => setTimeout(r, 250));
    }
    ledger = await databaseFacts(server.schema).catch((err: unknown) => `database check failed: ${String(err)}`);
  } finally {
    await pool.close().catch(() => undefined);
    await floor.end().catch(() => undefined);
    await server.close();
  }

  const sustained = (label: string, p99UnderMs = Infinity) => {
    const full = results
      .filter((r) => r.label === label && r.ok === Math.round(r.offered * STAGE_SECONDS) && r.p99 < p99UnderMs)
      .sort((a, b) => b.offered - a.offered)[0];
    return full ? `${full.offered.toLocaleString('en-US')}/s (p50 ${ms(full.p50)} ms, p99 ${ms(full.p99)} ms)` : 'none of the offered rates';
  };
  const overFloor = RATES.map((rate) => {
    const order = results.find((r) => r.label === 'POST /v1/orders' && r.offered === rate);
    const bare = results.find((r) => r.label === BARE && r.offered === rate);
    return order && bare ? `${rate.toLocaleString('en-US')}/s ${ms(order.p50 - bare.p50)} ms (p99 ${ms(order.p99 - bare.p99)})` : '';
  }).filter(Boolean);
  const peak = Math.max(...results.filter((r) => r.label === 'POST /v1/orders').map((r) => r.achieved));
  const cpus = os.cpus();
  return [
    '### POST /v1/orders over HTTP, signed, against GET /healthz (open loop, PostgreSQL)',
    '',
    `- machine: ${cpus.length} x ${cpus[0]?.model ?? 'unknown'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${facts}, Redis and the load generator all on the same machine`,
    IN_PROCESS
      ? '- server: in the load generator\'s process (BENCH_IN_PROCESS=1): both share one event loop'
      : '- server: a child process, `node --import tsx src/main.ts` (NODE_ENV=production, LOG_LEVEL=warn), on its own schema and Redis key prefix; the load generator (undici Pool, ' +
        `${CONNECTIONS} keep-alive connections) is a second Node process on the same 2 cores`,
    `- workload: ${STAGE_SECONDS} s per stage; orders alternate BUY (account A) and SELL (account B), limit GTC BTC-USDC at 30000 ± 0..2 ticks, 0.001–0.003 BTC, unique clientOrderId, each crossing whatever rests on the other side (about half rest, half trade); every request signed with Ed25519 (node:crypto, before the stage, timestamped with its scheduled send time)`,
    `- a scheduled request is shed (not sent, counted) while ${MAX_IN_FLIGHT} are in flight; responses still missing ${DRAIN_MS / 1000} s after the last send are abandoned`,
    '- latency: from the scheduled send time to the end of the response (open loop, no coordinated omission), successful responses only; achieved = successful responses per second',
    '- CPU: share of one core during the stage (200% = both cores), from /proc; postgres and redis count every such process on the machine',
    '',
    `- ${BARE}: the floor under a durable acknowledgement, one single-row INSERT committed on its own (fsync), sent from the generator over ${FLOOR_CONNECTIONS} connections to the same PostgreSQL at the same offered rate, timed like the requests`,
    '- CPU µs/ok: CPU of server, PostgreSQL and Redis together per successful request (the generator excluded)',
    '- server syscalls/ok: the server\'s read and write system calls (/proc/<pid>/io `syscr`, `syscw`: socket writes, reads, eventfd wake-ups) per successful request; the bare commit\'s are the server idling',
    '- projection lag: from a journal entry\'s acknowledgement to the read tables reflecting it, p50 / p99 ms, from the server\'s `trading_projection_lag_seconds` histogram (interpolated within its buckets: 0.5, 1, 2, 5, 10, 20, 50 ms ...)',
    '',
    '| case | offered req/s | sent | achieved ok/s | p50 ms | p90 ms | p99 ms | max ms | generator: max send lag / loop delay p99, ms | errors | CPU server / generator / postgres / redis | CPU µs/ok | server syscalls/ok, read / write | projection lag p50 / p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|',
    ...results.map(row),
    '',
    `Highest offered rate answered in full (every request 200, none shed): ${sustained('POST /v1/orders')}; GET /healthz: ${sustained('GET /healthz')}.`,
    `Highest offered rate answered in full with p99 under 20 ms: ${sustained('POST /v1/orders', 20)}. Most orders/s achieved in any stage: ${Math.round(peak).toLocaleString('en-US')}.`,
    `Order entry over the bare commit, p50 (p99) of POST /v1/orders minus that of ${BARE} at the same rate: ${overFloor.join('; ')}. Issue 29 aims at most 0.7 ms at 250/s.`,
    `Orders left resting after each order stage (canceled before the next): ${canceled.join(', ')}. ${ledger}`,
    'Aim of issue 5: at least 5,000 orders/s with p99 under 20 ms on two cores with PostgreSQL.',
  ].join('\n');
}
