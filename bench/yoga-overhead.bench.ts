import { fork, spawn } from 'node:child_process';
import path from 'node:path';
import { printSchema } from 'graphql';
import { Pool } from 'undici';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../test/helpers/env.ts';
import { TEST_OPERATOR_TOKEN, dropSchema, uniqueName } from '../test/helpers/infra.ts';
import { freePort } from '../test/helpers/redisServer.ts';
import { schema as serviceSchema } from '../src/transport/graphql/schema.ts';

const QUERY = '{ spotConfig { markets { symbol tickSizeQ9 fees { vipTier makerFeePpm takerFeePpm } } } }';
const SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 4);
const CONCURRENCY = 16;

async function load(url: string): Promise<{ rps: number; p50: number; p99: number }> {
  const pool = new Pool(url, { connections: CONCURRENCY });
  const body = JSON.stringify({ query: QUERY });
  const lat: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const res = await pool.request({ method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body });
        const text = await res.body.text();
        if (res.statusCode !== 200 || text.includes('"errors"')) throw new Error(`${res.statusCode} ${text.slice(0, 200)}`);
        lat.push(performance.now() - t0);
      }
    }),
  );
  await pool.close();
  lat.sort((a, b) => a - b);
  return { rps: lat.length / SECONDS, p50: lat[Math.floor(lat.length / 2)] as number, p99: lat[Math.floor(lat.length * 0.99)] as number };
}

/**
 * Issue 11: what the service's GraphQL stack (Yoga with its plugins: limits, auth context,
 * error masking, metrics) costs over a bare graphql-yoga server with the same schema text,
 * for the same public query, in the same run. Both are child processes; alternating stages
 * of closed-loop load (16 in flight).
 */
export async function run(): Promise<string> {
  const schema = uniqueName('benchyoga');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const service = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `${schema}:`, OPERATOR_TOKEN: TEST_OPERATOR_TOKEN, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let bare: ReturnType<typeof fork> | undefined;
  try {
    for (let i = 0; i < 300 && !(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
    const answer = (await (await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) })).json()) as { data: { spotConfig: unknown } };
    bare = fork(path.join(import.meta.dirname, 'bareYoga.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, NODE_ENV: 'production', BENCH_SDL: printSchema(serviceSchema), BENCH_SPOT_CONFIG: JSON.stringify(answer.data.spotConfig) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const barePort = await new Promise<number>((resolve) => bare?.once('message', (m) => resolve((m as { port: number }).port)));
    const bareUrl = `http://127.0.0.1:${barePort}`;
    const same = JSON.stringify((await (await fetch(`${bareUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) })).json()) as unknown) === JSON.stringify(answer);
    await load(url);
    await load(bareUrl);
    const rows: string[] = [];
    const ratios: number[] = [];
    for (let round = 1; round <= 3; round++) {
      const b = await load(bareUrl);
      const s = await load(url);
      ratios.push(s.rps / b.rps);
      rows.push(`| ${round}: bare graphql-yoga (baseline) | ${Math.round(b.rps).toLocaleString('en-US')} | ${b.p50.toFixed(2)} | ${b.p99.toFixed(2)} | 1.000 |`);
      rows.push(`| ${round}: the service's /graphql | ${Math.round(s.rps).toLocaleString('en-US')} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${(s.rps / b.rps).toFixed(3)} |`);
    }
    ratios.sort((a, b) => a - b);
    return [
      '### The same GraphQL query through the service and through a bare graphql-yoga (bench/yoga-overhead.bench.ts)',
      '',
      `\`${QUERY}\` (public), POST /graphql, ${CONCURRENCY} in flight, ${SECONDS} s stages alternating, both servers child processes on the same machine. The bare server has the service's schema text (printSchema) and one resolver answering the service's own answer${same ? ' (checked equal)' : ' (NOT equal: read with care)'}.`,
      '',
      '| round: server | req/s | p50 ms | p99 ms | ratio to bare |',
      '|---|---:|---:|---:|---:|',
      ...rows,
      '',
      `Median ratio: ${(ratios[1] as number).toFixed(3)} of the bare server's throughput.`,
    ].join('\n');
  } finally {
    bare?.kill('SIGKILL');
    service.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
    await dropSchema(schema);
  }
}
