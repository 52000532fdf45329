import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';
import { spawnServer, tradingPairTraders } from './harness.ts';
import type { SignedIn } from '../test/helpers/auth.ts';
import { dropSchema, uniqueName } from '../test/helpers/infra.ts';
import { freePort } from '../test/helpers/redisServer.ts';

/**
 * Issue 29's figure: what BENCH_SOCKETS graphql-ws sockets on one symbol's public trades
 * cost the server at BENCH_TRADE_RATE trades a second, against no subscriber. Ten traders
 * place BTC-USDC orders over HTTP, open loop at twice the trade rate, each crossing the one
 * before (a trade every other order). Stages alternate without and with the sockets (opened
 * by a process of their own, bench/publicTradeClients.ts, all with the same selection),
 * on the same server in the same run. Per stage: the server's CPU from /proc/<pid>/stat
 * (user + system, every thread) over the stage, and order entry's latency from each
 * order's scheduled send to its answer.
 *
 * Knobs: BENCH_SOCKETS (1000), BENCH_TRADE_RATE (100), BENCH_STAGE_SECONDS (20), BENCH_ROUNDS (2),
 * BENCH_DISTINCT_SELECTIONS (0; 1 gives each socket a selection of its own, so nothing is
 * shared: the same load as before issue 29, for comparison).
 */
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 1000);
const TRADE_RATE = Number(process.env.BENCH_TRADE_RATE ?? 100);
const STAGE_SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ORDER_RATE = TRADE_RATE * 2;
const DISTINCT = process.env.BENCH_DISTINCT_SELECTIONS === '1';

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The process's CPU seconds so far, user and system, of all its threads. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 (state) on.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

interface Stage {
  label: string;
  sockets: number;
  orders: number;
  refused: string;
  p50: number;
  p99: number;
  cpu: number;
  /** The socket clients' process (on the same cores), while it runs. */
  clientCpu?: number;
  framesPerSocket?: number;
}

const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] as number;

export async function run(): Promise<string> {
  const schema = uniqueName('benchshare');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawnServer(path.resolve(import.meta.dirname, '..'), schema, port, { STREAM_CONNECTIONS_PER_IP: '100000', STREAM_CONNECTIONS_PER_CREDENTIAL: '100000' });
  let clients: ChildProcess | undefined;
  try {
    // A loaded machine can take a while to compile and start the server.
    const ready = async () => fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    for (let i = 0; i < 1_200 && !(await ready()); i++) await new Promise((r) => setTimeout(r, 100));
    if (!(await ready())) throw new Error('the server did not become ready within 120 s');
    const pid = server.pid as number;
    const traders = await tradingPairTraders(url, '1000000000', '100000');
    const pool = new Pool(url, { connections: 64 });
    let sent = 0;
    /** Orders open loop for `seconds`: latencies from each order's scheduled send. */
    const orders = async (seconds: number, onOffered?: () => void) => {
      const total = Math.round(ORDER_RATE * seconds);
      const start = performance.now() + 20;
      const latencies: number[] = [];
      const refused = new Map<number, number>();
      const inflight: Promise<void>[] = [];
      for (let i = 0; i < total; i++) {
        const at = start + (i * 1000) / ORDER_RATE;
        const wait = at - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        const n = sent++;
        const t = traders[n % traders.length] as SignedIn;
        const buy = n % 2 === 0;
        const body = JSON.stringify({ order: { symbol: 'BTC-USDC', side: buy ? 'BUY' : 'SELL', baseQty: '0.001', limitGtc: { price: buy ? '30000.01' : '29999.99' } } });
        inflight.push(
          pool.request({ method: 'POST', path: '/v1/orders', headers: { 'content-type': 'application/json', ...t.auth }, body }).then(async (res) => {
            await res.body.dump();
            if (res.statusCode === 200) latencies.push(performance.now() - at);
            else refused.set(res.statusCode, (refused.get(res.statusCode) ?? 0) + 1);
          }),
        );
      }
      onOffered?.();
      await Promise.all(inflight);
      latencies.sort((a, b) => a - b);
      return { n: latencies.length, refused: [...refused].map(([status, n]) => `${n} × ${status}`).join(', ') || '0', p50: q(latencies, 0.5), p99: q(latencies, 0.99) };
    };
    const stage = async (label: string, sockets: number, clientPid?: number): Promise<Stage> => {
      const cpu0 = cpuSeconds(pid);
      const client0 = clientPid === undefined ? 0 : cpuSeconds(clientPid);
      const t0 = performance.now();
      // CPU over the window the load is offered in, not the wait for the last answers.
      let cpu = NaN;
      let clientCpu: number | undefined;
      const r = await orders(STAGE_SECONDS, () => {
        const seconds = (performance.now() - t0) / 1000;
        cpu = ((cpuSeconds(pid) - cpu0) / seconds) * 100;
        if (clientPid !== undefined) clientCpu = ((cpuSeconds(clientPid) - client0) / seconds) * 100;
      });
      return { label, sockets, orders: r.n, refused: r.refused, p50: r.p50, p99: r.p99, cpu, ...(clientCpu === undefined ? {} : { clientCpu }) };
    };
    const openSockets = async () => {
      const child = fork(path.join(import.meta.dirname, 'publicTradeClients.ts'), [], {
        execArgv: ['--import', 'tsx'],
        env: { ...process.env, BENCH_URL: url, BENCH_SOCKETS: String(SOCKETS) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      clients = child;
      const ready = await new Promise<number>((resolve, reject) => {
        child.once('message', (m) => resolve((m as { ready: number }).ready));
        child.once('exit', (code) => reject(new Error(`socket clients exited with ${code}`)));
      });
      // The sockets' connection-time work settles before their steady cost is measured.
      await new Promise((r) => setTimeout(r, 3_000));
      return {
        ready,
        pid: child.pid as number,
        report: () =>
          new Promise<{ frames: number; errors: number }>((resolve) => {
            child.once('message', (m) => resolve(m as never));
            child.send('report');
          }),
        async close() {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGKILL');
          await exited;
          clients = undefined;
          await new Promise((r) => setTimeout(r, 2_000));
        },
      };
    };

    await orders(3); // warm-up
    const stages: Stage[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      stages.push(await stage(`round ${round}: no subscribers`, 0));
      const sockets = await openSockets();
      const before = await sockets.report();
      const loaded = await stage(`round ${round}: ${sockets.ready} sockets on publicTrades${DISTINCT ? ', each its own selection' : ''}`, sockets.ready, sockets.pid);
      const after = await sockets.report();
      loaded.framesPerSocket = (after.frames - before.frames) / sockets.ready;
      if (after.errors > 0) loaded.label += ` (${after.errors} subscriptions ended with an error)`;
      stages.push(loaded);
      await sockets.close();
    }
    await pool.close();

    const f2 = (x: number) => x.toFixed(2);
    const rows = stages.map((s) => `| ${s.label} | ${s.orders} | ${s.refused} | ${f2(s.p50)} | ${f2(s.p99)} | ${s.cpu.toFixed(1)} | ${s.clientCpu === undefined ? '' : s.clientCpu.toFixed(1)} | ${s.framesPerSocket === undefined ? '' : s.framesPerSocket.toFixed(0)} |`);
    const deltas: string[] = [];
    for (let i = 0; i + 1 < stages.length; i += 2) {
      const [none, loaded] = [stages[i] as Stage, stages[i + 1] as Stage];
      deltas.push(`round ${i / 2 + 1}: CPU ${loaded.cpu - none.cpu >= 0 ? '+' : ''}${(loaded.cpu - none.cpu).toFixed(1)} points of a core, order p50 ${loaded.p50 - none.p50 >= 0 ? '+' : ''}${f2(loaded.p50 - none.p50)} ms`);
    }
    return [
      '### Public trades to many graphql-ws sockets, shared execution (bench/shared-subscriptions.bench.ts)',
      '',
      `Server: src/main.ts as a child process on PostgreSQL and Redis. Ten traders place BTC-USDC orders over HTTP, open loop at ${ORDER_RATE}/s for ${STAGE_SECONDS} s a stage, each crossing the one before: about ${TRADE_RATE} trades/s. Stages alternate without and with ${SOCKETS} anonymous graphql-ws sockets (another process) on publicTrades BTC-USDC, ${DISTINCT ? 'each with a selection of its own (an alias: nothing shared)' : 'all with the same selection'}. Server CPU: user + system time of the server process over the stage (/proc/<pid>/stat), in % of one core; socket clients CPU: the same of the process holding the sockets, which shares the machine's cores with the server, PostgreSQL, Redis and the traders. Order latency from each order's scheduled send. Issue 29's aim: with the sockets, at most 20 points more CPU and at most 1 ms more p50.`,
      '',
      '| stage | orders | refused | order p50 ms | order p99 ms | server CPU % | socket clients CPU % | trade frames per socket |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      deltas.join('; '),
    ].join('\n');
  } finally {
    clients?.kill('SIGKILL');
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await dropSchema(schema);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await run());
