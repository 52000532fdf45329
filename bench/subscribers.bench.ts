import { spawn } from 'node:child_process';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import { Pool } from 'undici';
import WebSocket from 'ws';
import { signIn, type SignedIn } from '../test/helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../test/helpers/env.ts';
import { TEST_OPERATOR_TOKEN, dropSchema, uniqueName } from '../test/helpers/infra.ts';
import { freePort } from '../test/helpers/redisServer.ts';

/**
 * Issue 16, class 0: the cost of open graphql-ws subscriptions on other requests. The
 * server runs as a child process (src/main.ts) on PostgreSQL and Redis; GET /healthz is sent
 * open loop at a fixed rate, first with no subscriber (the baseline), then with
 * BENCH_SUBSCRIBERS sockets open (sessions of 10 wallets, each socket with an orderUpdates
 * subscription), in the same run. Latency is from each request's scheduled send time.
 * BENCH_SERVER_ROOT runs the server from another checkout (to compare with an older commit).
 *
 * Knobs: BENCH_SUBSCRIBERS (1000), BENCH_HEALTHZ_RATE (200/s), BENCH_STAGE_SECONDS (12).
 */
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const RATE = Number(process.env.BENCH_HEALTHZ_RATE ?? 200);
const STAGE_SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 12);
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT ?? path.resolve(import.meta.dirname, '..');

interface Stage {
  label: string;
  p50: number;
  p99: number;
  max: number;
  n: number;
}

async function openLoop(pool: Pool, label: string): Promise<Stage> {
  const intervalMs = 1000 / RATE;
  const total = Math.round(RATE * STAGE_SECONDS);
  const start = performance.now() + 50;
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const at = start + i * intervalMs;
    const wait = at - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      pool.request({ method: 'GET', path: '/healthz' }).then(async (res) => {
        await res.body.dump();
        latencies.push(performance.now() - at);
      }),
    );
  }
  await Promise.all(inflight);
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] as number;
  return { label, p50: q(0.5), p99: q(0.99), max: latencies[latencies.length - 1] as number, n: latencies.length };
}

export async function run(): Promise<string> {
  const schema = uniqueName('benchws');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: `${schema}:`,
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const clients: Client[] = [];
  try {
    for (let i = 0; i < 300 && !(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
    const wallets: SignedIn[] = [];
    for (let i = 0; i < 10; i++) wallets.push(await signIn(url));
    const pool = new Pool(url, { connections: 32 });
    await openLoop(pool, 'warm-up');
    const baseline = await openLoop(pool, 'no subscribers');

    let started = 0;
    await Promise.all(
      Array.from({ length: SUBSCRIBERS }, (_, i) => {
        const who = wallets[i % wallets.length] as SignedIn;
        const client = createClient({ url: `${url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, connectionParams: { authorization: who.auth.authorization } });
        clients.push(client);
        return new Promise<void>((resolve, reject) => {
          client.on('connected', () => {
            started++;
            resolve();
          });
          client.on('closed', () => reject(new Error('socket closed')));
          client.subscribe({ query: 'subscription { orderUpdates { orderId } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
        });
      }),
    );
    // Let the sockets' connection-time work settle before measuring their steady cost.
    await new Promise((r) => setTimeout(r, 2_000));
    const loaded = await openLoop(pool, `${started} subscribers`);
    await pool.close();
    const row = (s: Stage) => `| ${s.label} | ${s.n} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.max.toFixed(2)} |`;
    return [
      `## Open graphql-ws subscriptions vs other requests (${SERVER_ROOT === path.resolve(import.meta.dirname, '..') ? 'this checkout' : SERVER_ROOT})`,
      '',
      `GET /healthz open loop at ${RATE}/s for ${STAGE_SECONDS} s, before and with ${started} idle orderUpdates subscribers (10 sessions), same server, same run.`,
      '',
      '| stage | requests | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|',
      row(baseline),
      row(loaded),
      '',
      `p99 with subscribers / without: ${(loaded.p99 / baseline.p99).toFixed(2)} (difference ${(loaded.p99 - baseline.p99).toFixed(2)} ms)`,
    ].join('\n');
  } finally {
    await Promise.all(clients.map((c) => c.dispose()));
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await dropSchema(schema);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await run());
