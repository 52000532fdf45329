import { spawn } from 'node:child_process';
import path from 'node:path';
import { Pool } from 'undici';
import { healthzOpenLoop, spawnServer } from './harness.ts';
import { signIn, type SignedIn } from '../test/helpers/auth.ts';
import { dropSchema, uniqueName } from '../test/helpers/infra.ts';
import { freePort } from '../test/helpers/redisServer.ts';

/**
 * Issue 16, class 0: the cost of open graphql-ws subscriptions on other requests. The
 * server runs as a child process (src/main.ts) on PostgreSQL and Redis; GET /healthz is sent
 * open loop at a fixed rate, first with no subscriber (the baseline), then with
 * BENCH_SUBSCRIBERS sockets open (sessions of 10 wallets, each socket with an orderUpdates
 * subscription, opened by a process of their own: bench/subscriberClients.ts), in the same
 * run. Latency is from each request's scheduled send time.
 * BENCH_SERVER_ROOT runs the server from another checkout (to compare with an older commit).
 *
 * Knobs: BENCH_SUBSCRIBERS (1000), BENCH_HEALTHZ_RATE (200/s), BENCH_STAGE_SECONDS (12), BENCH_ROUNDS (3).
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
  loopP99?: number;
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const row = (s: Stage) => `| ${s.label} | ${s.n} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.max.toFixed(2)} | ${s.loopP99?.toFixed(2) ?? ''} |`;

/** The server's event-loop delay p99 over `stage` (prom-client resets it at every scrape). */
async function serverLag(url: string, stage: () => Promise<Stage>): Promise<Stage> {
  const scrape = async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Number(/^nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(text)?.[1] ?? NaN) * 1000;
  };
  await scrape();
  const result = await stage();
  return { ...result, loopP99: await scrape() };
}

const openLoop = (pool: Pool, label: string): Promise<Stage> => healthzOpenLoop(pool, label, RATE, STAGE_SECONDS);

export async function run(): Promise<string> {
  const schema = uniqueName('benchws');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(SERVER_ROOT, schema, port, { TRUST_PROXY: 'true' });
  let stopSubscribers = () => undefined as unknown;
  try {
    for (let i = 0; i < 300 && !(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
    const wallets: SignedIn[] = [];
    for (let i = 0; i < 10; i++) wallets.push(await signIn(url));
    const pool = new Pool(url, { connections: 32 });
    await openLoop(pool, 'warm-up');
    const startSubscribers = async () => {
      const subscribers = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'subscriberClients.ts')], {
        env: { ...process.env, BENCH_URL: url, BENCH_TOKENS: wallets.map((w) => w.token).join(','), BENCH_SUBSCRIBERS: String(SUBSCRIBERS) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      stopSubscribers = () => subscribers.kill('SIGKILL');
      const started = await new Promise<number>((resolve, reject) => {
        subscribers.stdout.on('data', (d) => {
          const m = /ready (\d+)/.exec(String(d));
          if (m) resolve(Number(m[1]));
        });
        subscribers.once('exit', (code) => reject(new Error(`subscribers exited with ${code}`)));
      });
      // Let the sockets' connection-time work settle before measuring their steady cost.
      await new Promise((r) => setTimeout(r, 2_000));
      return {
        started,
        async stop() {
          const exited = new Promise((r) => subscribers.once('exit', r));
          subscribers.kill('SIGKILL');
          await exited;
          await new Promise((r) => setTimeout(r, 2_000));
        },
      };
    };
    // Alternating stages, so the machine's drift (other work on its two cores) falls on both.
    const rows: string[] = [];
    const ratios: number[] = [];
    let started = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const baseline = await serverLag(url, () => openLoop(pool, `round ${round}: no subscribers`));
      const subs = await startSubscribers();
      started = subs.started;
      const loaded = await serverLag(url, () => openLoop(pool, `round ${round}: ${subs.started} subscribers`));
      await subs.stop();
      rows.push(row(baseline), row(loaded));
      ratios.push(loaded.p99 / baseline.p99);
    }
    await pool.close();
    ratios.sort((a, b) => a - b);
    return [
      `## Open graphql-ws subscriptions vs other requests (${SERVER_ROOT === path.resolve(import.meta.dirname, '..') ? 'this checkout' : SERVER_ROOT})`,
      '',
      `GET /healthz open loop at ${RATE}/s, ${STAGE_SECONDS} s stages alternating without and with ${started} idle orderUpdates subscribers (10 sessions, sockets opened by another process), same server, same run. Server loop p99: the server's own event-loop delay over the stage (prom-client).`,
      '',
      '| stage | requests | p50 ms | p99 ms | max ms | server loop p99 ms |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      `p99 with subscribers / without, per round: ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${(ratios[Math.floor(ratios.length / 2)] as number).toFixed(2)})`,
    ].join('\n');
  } finally {
    stopSubscribers();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await dropSchema(schema);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await run());
