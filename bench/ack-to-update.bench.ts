import { fork, spawn } from 'node:child_process';
import path from 'node:path';
import { Pool } from 'undici';
import type { SignedIn } from '../test/helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../test/helpers/env.ts';
import { TEST_OPERATOR_TOKEN, dropSchema, uniqueName } from '../test/helpers/infra.ts';
import { freePort } from '../test/helpers/redisServer.ts';
import { tradingPairTraders } from './harness.ts';

/**
 * Issue 11, the web UI's path: with BENCH_SUBSCRIBERS graphql-ws sockets open (10 traders'
 * sessions, each socket on its account's orderUpdates, every other one also on
 * publicTrades), orders are placed open loop at BENCH_ORDER_RATE/s by those traders over
 * HTTP; for each order, the time from its acknowledgement (the HTTP answer received) to its
 * first update reaching the first and the last of its account's subscribers. Clock: epoch
 * ms from performance.timeOrigin in both processes (same machine).
 *
 * Knobs: BENCH_SUBSCRIBERS (1000), BENCH_ORDER_RATE (250), BENCH_STAGE_SECONDS (10).
 */
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const RATE = Number(process.env.BENCH_ORDER_RATE ?? 250);
const STAGE_SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 10);
const now = () => performance.timeOrigin + performance.now();
const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] as number;

export async function run(): Promise<string> {
  const schema = uniqueName('benchack');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `${schema}:`, OPERATOR_TOKEN: TEST_OPERATOR_TOKEN, TRUST_PROXY: 'true', LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let clients: ReturnType<typeof fork> | undefined;
  try {
    for (let i = 0; i < 300 && !(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
    const traders = await tradingPairTraders(url, '100000000', '10000');
    const pool = new Pool(url, { connections: 64 });
    const rows: string[] = [];
    for (const publicTrades of [false, true]) {
      clients = fork(path.join(import.meta.dirname, 'updateClients.ts'), [], {
        execArgv: ['--import', 'tsx'],
        env: { ...process.env, BENCH_URL: url, BENCH_TOKENS: traders.map((t) => t.token).join(','), BENCH_SUBSCRIBERS: String(SUBSCRIBERS), BENCH_PUBLIC_TRADES: publicTrades ? '1' : '0' },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const ready = await new Promise<number>((resolve, reject) => {
        clients?.once('message', (m) => resolve((m as { ready: number }).ready));
        clients?.once('exit', (code) => reject(new Error(`subscriber clients exited with ${code}`)));
      });
      await new Promise((r) => setTimeout(r, 2_000));
      const acks = new Map<string, number>();
      const refused = new Map<number, number>();
      const send = async (i: number, tag: string) => {
        const t = traders[i % traders.length] as SignedIn;
        const buy = i % 2 === 0;
        const body = JSON.stringify({ order: { symbol: 'BTC-USDC', side: buy ? 'BUY' : 'SELL', baseQty: '0.001', clientOrderId: `${tag}${i}`, limitGtc: { price: buy ? '30000.01' : '29999.99' } } });
        const res = await pool.request({ method: 'POST', path: '/v1/orders', headers: { 'content-type': 'application/json', ...t.auth }, body });
        const text = await res.body.text();
        const at = now();
        if (res.statusCode !== 200) return void refused.set(res.statusCode, (refused.get(res.statusCode) ?? 0) + 1);
        acks.set((JSON.parse(text) as { orderId: string }).orderId, at);
      };
      const stage = async (tag: string, seconds: number) => {
        const total = Math.round(RATE * seconds);
        const start = performance.now() + 20;
        const inflight: Promise<void>[] = [];
        for (let i = 0; i < total; i++) {
          const wait = start + (i * 1000) / RATE - performance.now();
          if (wait > 1) await new Promise((r) => setTimeout(r, wait));
          inflight.push(send(i, tag));
        }
        await Promise.all(inflight);
      };
      await stage(`w${publicTrades}`, 2);
      acks.clear();
      refused.clear();
      await stage(`s${publicTrades}`, STAGE_SECONDS);
      await new Promise((r) => setTimeout(r, 1_000));
      const report = await new Promise<{ first: [string, number][]; trades: number; loopP99: number }>((resolve) => {
        clients?.once('message', (m) => resolve(m as never));
        clients?.send('report');
      });
      clients.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 1_000));
      const first = new Map(report.first);
      const lat: number[] = [];
      let missing = 0;
      for (const [orderId, ack] of acks) {
        const f = first.get(orderId);
        if (f === undefined) missing++;
        else lat.push(f - ack);
      }
      lat.sort((a, b) => a - b);
      const f2 = (x: number) => x.toFixed(2);
      const refusals = [...refused].map(([s, c]) => `${c} × ${s}`).join(', ') || '0';
      rows.push(
        `| ${ready} sockets, ${publicTrades ? `all on publicTrades (${report.trades.toLocaleString('en-US')} trade events delivered)` : 'no publicTrades'} | ${lat.length} | ${f2(q(lat, 0.5))} | ${f2(q(lat, 0.9))} | ${f2(q(lat, 0.99))} | ${f2(lat.at(-1) ?? NaN)} | ${missing} | ${refusals} | ${f2(report.loopP99)} |`,
      );
    }
    await pool.close();
    return [
      '### Acknowledgement to update with 1,000 graphql-ws subscribers (bench/ack-to-update.bench.ts)',
      '',
      `Server: src/main.ts as a child process on PostgreSQL and Redis. ${SUBSCRIBERS} graphql-ws sockets opened by another process over 10 traders' sessions; one socket per trader on its orderUpdates; in the second stage every socket also on publicTrades BTC-USDC. The traders place orders over HTTP (session auth), open loop at ${RATE}/s for ${STAGE_SECONDS} s, each crossing the one before (about half trade). Per order: from its HTTP answer received to its first update at the trader's subscriber (negative: the update came first). Same server, same run.`,
      '',
      '| stage | orders | p50 ms | p90 ms | p99 ms | max ms | updates missing | refused | subscriber process loop p99 ms |',
      '|---|---:|---:|---:|---:|---:|---:|---|---:|',
      ...rows,
    ].join('\n');
  } finally {
    clients?.kill('SIGKILL');
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await dropSchema(schema);
  }
}
