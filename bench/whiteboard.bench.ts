import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { api, signIn } from '../test/helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../test/helpers/env.ts';
import { dropSchema, uniqueName } from '../test/helpers/infra.ts';

/**
 * One whiteboard, 20 editors, each sending 10 updates a second (one Y.Map key per editor,
 * overwritten with a sequence number), through
 * - the service: `src/main.ts` as a child process (PostgreSQL, Redis, NODE_ENV=production):
 *   Hocuspocus at /collab with auth, limits, debounced storage and the Redis fan-out;
 * - the baseline: a bare `ws` relay child process (bench/whiteboard-relay.ts) forwarding
 *   the same Yjs updates to the other clients, with no protocol, document or storage.
 * The 20 clients are real Y.Docs in this process (providers for the service, raw sockets
 * for the relay), so client-side work is the same in both. Latency: from an editor's
 * local change to each other editor's observation of it. Server CPU: /proc utime+stime of
 * the server process over the measured window, divided by the updates sent.
 */
const EDITORS = 20;
const RATE_HZ = 10;
const WARMUP_MS = 2_000;
const MEASURE_MS = 10_000;
const ROUNDS = 2;
const CLK_TCK = 100;

interface Client {
  doc: Y.Doc;
  close(): void;
}

interface Stage {
  name: string;
  latencies: number[];
  updates: number;
  cpuMs: number;
  delivered: number;
}

async function ticksOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('server did not become ready');
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Drives the editors for warm-up + window; returns latencies and server CPU of the window. */
async function drive(name: string, clients: Client[], serverPid: number): Promise<Stage> {
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let measuring = false;
  let updates = 0;
  let delivered = 0;
  clients.forEach((c, i) => {
    c.doc.getMap<number>('bench').observe((event) => {
      const now = performance.now();
      for (const key of event.keysChanged) {
        if (key === `c${i}`) continue;
        const seq = c.doc.getMap<number>('bench').get(key);
        const t = sentAt.get(`${key}:${seq}`);
        if (t !== undefined && measuring) {
          latencies.push(now - t);
          delivered++;
        }
      }
    });
  });
  const timers: NodeJS.Timeout[] = [];
  const seqs = clients.map(() => 0);
  clients.forEach((c, i) => {
    const start = setTimeout(() => {
      timers.push(
        setInterval(() => {
          const seq = ++seqs[i]!;
          sentAt.set(`c${i}:${seq}`, performance.now());
          if (measuring) updates++;
          c.doc.getMap<number>('bench').set(`c${i}`, seq);
        }, 1000 / RATE_HZ),
      );
    }, (i * 1000) / RATE_HZ / EDITORS);
    timers.push(start);
  });
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const before = await ticksOf(serverPid);
  measuring = true;
  await new Promise((r) => setTimeout(r, MEASURE_MS));
  measuring = false;
  const after = await ticksOf(serverPid);
  for (const t of timers) clearInterval(t);
  // Let the last updates land before the clients go.
  await new Promise((r) => setTimeout(r, 500));
  return { name, latencies, updates, delivered, cpuMs: ((after - before) * 1000) / CLK_TCK };
}

async function relayStage(round: number): Promise<Stage> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, 'whiteboard-relay.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  const clients: Client[] = await Promise.all(
    Array.from({ length: EDITORS }, async () => {
      const doc = new Y.Doc();
      const ws = new WebSocket(`ws://127.0.0.1:${port}`);
      ws.binaryType = 'nodebuffer';
      await new Promise((r) => ws.once('open', r));
      doc.on('update', (update: Uint8Array, origin: unknown) => {
        if (origin !== 'remote') ws.send(update);
      });
      ws.on('message', (data: Buffer) => Y.applyUpdate(doc, new Uint8Array(data), 'remote'));
      return { doc, close: () => ws.close() };
    }),
  );
  try {
    return await drive(`baseline: bare ws relay (round ${round})`, clients, child.pid!);
  } finally {
    for (const c of clients) c.close();
    await stop(child);
  }
}

async function serviceStage(round: number, server: { url: string; pid: number; token: string; boardId: string; label: string }): Promise<Stage> {
  const clients: Client[] = await Promise.all(
    Array.from({ length: EDITORS }, async () => {
      const doc = new Y.Doc();
      const websocketProvider = new HocuspocusProviderWebsocket({ url: `${server.url.replace(/^http/, 'ws')}/collab`, WebSocketPolyfill: WebSocket as never });
      const provider = new HocuspocusProvider({ websocketProvider, name: server.boardId, document: doc, token: server.token });
      await new Promise<void>((resolve, reject) => {
        provider.on('synced', () => resolve());
        provider.on('authenticationFailed', ({ reason }: { reason: string }) => reject(new Error(reason)));
        provider.attach();
      });
      return {
        doc,
        close() {
          provider.destroy();
          websocketProvider.destroy();
        },
      };
    }),
  );
  try {
    return await drive(`service: /collab, ${server.label} (round ${round})`, clients, server.pid);
  } finally {
    for (const c of clients) c.close();
  }
}

async function startService(withRedis: boolean) {
  const schema = uniqueName('bench');
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      ...(withRedis ? { REDIS_URL: TEST_REDIS_URL } : {}),
      REDIS_KEY_PREFIX: `${schema}:`,
      PAGE_TOKEN_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'true',
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child);
  const owner = await signIn(url);
  const board = await api(url, 'POST', '/v1/collab/whiteboards', { title: 'bench' }, owner.auth);
  return {
    url,
    pid: child.pid!,
    token: owner.token,
    boardId: board.body.board.boardId as string,
    label: withRedis ? 'PostgreSQL + Redis fan-out' : 'PostgreSQL, in-process store (no fan-out)',
    async close() {
      await stop(child);
      await dropSchema(schema).catch(() => undefined);
      const redis = new Redis(TEST_REDIS_URL);
      const keys = await redis.keys(`${schema}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function run(): Promise<string> {
  const stages: Stage[] = [];
  const withRedis = await startService(true);
  const withoutRedis = await startService(false);
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      stages.push(await relayStage(round));
      stages.push(await serviceStage(round, withRedis));
      stages.push(await serviceStage(round, withoutRedis));
    }
  } finally {
    await withRedis.close();
    await withoutRedis.close();
  }
  const rows = stages.map((s) => {
    const sorted = [...s.latencies].sort((a, b) => a - b);
    return { ...s, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN, cpuPerUpdateUs: (s.cpuMs * 1000) / s.updates };
  });
  const base = (round: number) => rows[(round - 1) * 3]!;
  const f = (n: number, d = 1) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const table = rows.map((r, i) => {
    const b = base(Math.floor(i / 3) + 1);
    return `| ${r.name} | ${r.updates} | ${r.delivered} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} | ${f(r.p99 / b.p99, 2)} | ${f(r.cpuPerUpdateUs, 0)} | ${f(r.cpuPerUpdateUs / b.cpuPerUpdateUs, 2)} |`;
  });
  return [
    '### Whiteboard room: 20 editors x 10 updates/s through the server (bench/whiteboard.bench.ts)',
    '',
    `- one board, ${EDITORS} editors in the bench process (real Y.Docs), each changing its own Y.Map key ${RATE_HZ} times a second (${EDITORS * RATE_HZ} updates/s, each delivered to ${EDITORS - 1} others); ${WARMUP_MS / 1000} s warm-up, ${MEASURE_MS / 1000} s measured, ${ROUNDS} rounds alternating with the baseline`,
    '- service: `src/main.ts` child processes (NODE_ENV=production) on PostgreSQL, one with Redis (rooms fan out through it) and one without REDIS_URL (in-process store, no fan-out): Hocuspocus 3.4 at /collab, session-token auth, limits, 2 s/10 s debounced storage; clients are @hocuspocus/provider',
    '- baseline: a bare `ws` relay child process forwarding the same Yjs updates to every other client; clients apply them to their Y.Docs as the providers do',
    '- latency: from the editor\'s local change to another editor\'s observer seeing it (all clients share the bench process and both cores with the server)',
    '- server CPU per update: the server process\'s utime+stime over the window divided by the updates sent (10 ms tick resolution)',
    '',
    '| case | updates sent | deliveries seen | p50 ms | p99 ms | max ms | p99 ratio to baseline | server CPU µs/update | CPU ratio to baseline |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...table,
  ].join('\n');
}
