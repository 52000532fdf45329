import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'undici';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../test/helpers/env.ts';
import { liftLimits, signIn, type SignedIn } from '../test/helpers/auth.ts';
import { TEST_OPERATOR_TOKEN } from '../test/helpers/infra.ts';
import { credit } from '../test/helpers/trading.ts';

/**
 * Measures operations per second of a function, in the same process as its baseline, so
 * results can be read as ratios on a shared, noisy machine.
 */
export interface BenchResult {
  name: string;
  opsPerSec: number;
  samples: number;
}

export async function measure(name: string, fn: () => unknown, options: { ms?: number } = {}): Promise<BenchResult> {
  const budget = options.ms ?? 1500;
  for (let i = 0; i < 200; i++) await fn();
  let count = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(budget) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 50; i++) await fn();
    count += 50;
    now = process.hrtime.bigint();
  }
  const seconds = Number(now - start) / 1e9;
  return { name, opsPerSec: count / seconds, samples: count };
}

export function table(results: BenchResult[], baseline: BenchResult): string {
  const rows = results.map(
    (r) => `| ${r.name} | ${Math.round(r.opsPerSec).toLocaleString('en-US')} | ${(r.opsPerSec / baseline.opsPerSec).toFixed(3)} |`,
  );
  return ['| case | ops/s | ratio to baseline |', '|---|---:|---:|', ...rows].join('\n');
}

/** mulberry32: a small seeded generator, so every run offers the same workload. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Latency quantiles of one open-loop stage, in milliseconds. */
export interface LoopStage {
  label: string;
  p50: number;
  p99: number;
  max: number;
  n: number;
}

/**
 * GET /healthz at a fixed rate for `seconds`, each latency measured from when the request
 * was due (open loop: a slow server does not slow the offered load down).
 */
export async function healthzOpenLoop(pool: Pool, label: string, rate: number, seconds: number): Promise<LoopStage> {
  const intervalMs = 1000 / rate;
  const total = Math.round(rate * seconds);
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

/**
 * Node's arguments for the service as `npm start` gives them in `root`'s package.json (its
 * V8 flags included), so a bench measures the process as it is run, and an A/B run of an
 * older checkout measures that checkout's own.
 */
export function serverNodeArgs(root: string): string[] {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [command, ...args] = start.split(/\s+/);
  if (command !== 'node') throw new Error(`npm start in ${root} does not run node directly: ${start}`);
  return args;
}

/**
 * The service (src/main.ts under `root`) as a production child process on PostgreSQL and
 * Redis, with its own schema and key prefix, so a bench measures it from outside.
 */
export function spawnServer(root: string, schema: string, port: number, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, serverNodeArgs(root), {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: `${schema}:`,
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * Ten accounts free of the order limits, the even ones holding `usdc` USDC and the odd ones
 * `btc` BTC, so that orders between them trade BTC-USDC.
 */
export async function tradingPairTraders(url: string, usdc: string, btc: string): Promise<SignedIn[]> {
  const traders: SignedIn[] = [];
  for (let i = 0; i < 10; i++) {
    const t = await signIn(url);
    await liftLimits(url, t.rootAccountId, ['TRADING_PLACE', 'TRADING_CANCEL']);
    await credit(url, t.rootAccountId, i % 2 === 0 ? 'USDC' : 'BTC', i % 2 === 0 ? usdc : btc);
    traders.push(t);
  }
  return traders;
}
