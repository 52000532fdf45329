import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Client } from 'graphql-ws';
import pg from 'pg';
import { Pool } from 'undici';
import { healthzOpenLoop, spawnServer } from './harness.ts';
import { signIn } from '../test/helpers/auth.ts';
import { TEST_DATABASE_URL } from '../test/helpers/env.ts';
import { wsClient } from '../test/helpers/graphql.ts';
import { dropSchema, uniqueName } from '../test/helpers/infra.ts';
import { freePort } from '../test/helpers/redisServer.ts';
import { placeOrder, trader } from '../test/helpers/trading.ts';

/**
 * Issue 23, "Twenty resumes stall every request": the cost of `orderUpdates(after: "0")`
 * resumes on other requests, over a journal of BENCH_JOURNAL_ENTRIES entries none of which
 * is the resuming accounts'. The server runs as a child process (src/main.ts) on PostgreSQL
 * and Redis; GET /healthz is sent open loop at a fixed rate, in stages alternating without
 * resumes (the baseline) and with BENCH_RESUMERS fresh accounts each resuming from "0", then
 * leaving after 500 ms and resuming again, for the whole stage; a third stage makes the same
 * subscription churn without `after`, to tell the resume's cost from the subscription's. Latency is from each
 * request's scheduled send time.
 *
 * The journal is built by a fast bulk path: the server makes one real entry (an order
 * placed over HTTP) and stops; one INSERT ... SELECT generate_series copies that entry under
 * the following sequences (moving the projection's watermark past them, as if projected),
 * and the server starts again on it.
 * BENCH_SERVER_ROOT runs the server from another checkout (to compare with an older commit).
 *
 * Knobs: BENCH_JOURNAL_ENTRIES (100000), BENCH_RESUMERS (20), BENCH_HEALTHZ_RATE (200/s),
 * BENCH_STAGE_SECONDS (12), BENCH_ROUNDS (3).
 */
const ENTRIES = Number(process.env.BENCH_JOURNAL_ENTRIES ?? 100_000);
const RESUMERS = Number(process.env.BENCH_RESUMERS ?? 20);
const RATE = Number(process.env.BENCH_HEALTHZ_RATE ?? 200);
const STAGE_SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 12);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT ?? path.resolve(import.meta.dirname, '..');

interface Stage {
  label: string;
  p50: number;
  p99: number;
  max: number;
  n: number;
  resumes?: number;
}

const row = (s: Stage) => `| ${s.label} | ${s.n} | ${s.resumes ?? 0} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.max.toFixed(2)} |`;

const openLoop = (pool: Pool, label: string): Promise<Stage> => healthzOpenLoop(pool, label, RATE, STAGE_SECONDS);

const startServer = (schema: string, port: number): ChildProcess => spawnServer(SERVER_ROOT, schema, port, { TRUST_PROXY: 'true' });

async function ready(url: string): Promise<void> {
  for (let i = 0; i < 600 && !(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Copies the journal's last entry under the next `n` sequences, as if written and projected. */
async function bulkJournal(schema: string, n: number): Promise<number> {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await db.connect();
  try {
    await db.query(`SET search_path TO "${schema}"`);
    const { rows: tables } = await db.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'TradingJournalAccount'`, [schema]);
    const started = performance.now();
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO "TradingJournal" (seq, payload)
       SELECT last.seq + g, last.payload FROM (SELECT * FROM "TradingJournal" ORDER BY seq DESC LIMIT 1) last, generate_series(1, $1::int) g`,
      [n],
    );
    // The copies name the same accounts as the entry they copy.
    if (tables.length > 0) {
      await db.query(
        `INSERT INTO "TradingJournalAccount" ("accountPublicId", seq)
         SELECT a."accountPublicId", last.seq + g FROM (SELECT max(seq) - $1::int AS seq FROM "TradingJournal") last
         JOIN "TradingJournalAccount" a ON a.seq = last.seq, generate_series(1, $1::int) g`,
        [n],
      );
    }
    await db.query(`UPDATE "ProjectionWatermark" SET seq = (SELECT max(seq) FROM "TradingJournal")`);
    await db.query('COMMIT');
    await db.query(`ANALYZE "TradingJournal"`);
    return performance.now() - started;
  } finally {
    await db.end();
  }
}

/** `count` accounts resuming from "0", each leaving after 500 ms and resuming again, until stopped. */
function resumers(clients: Client[], after: string) {
  let running = true;
  let resumes = 0;
  const loops = clients.map(async (client) => {
    while (running) {
      resumes++;
      const unsubscribe = client.subscribe({ query: `subscription { orderUpdates${after === '' ? '' : `(after: "${after}")`} { orderId } }` }, { next: () => undefined, error: () => undefined, complete: () => undefined });
      await new Promise((r) => setTimeout(r, 500));
      unsubscribe();
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return resumes;
    },
  };
}

export async function run(): Promise<string> {
  const schema = uniqueName('benchresume');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child = startServer(schema, port);
  const clients: Client[] = [];
  try {
    await ready(url);
    const maker = await trader(url, { ETH: '10' });
    const placed = await placeOrder(url, maker, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '2000' } });
    if (placed.status !== 200) throw new Error(`order: ${placed.status} ${JSON.stringify(placed.body)}`);
    const fresh = [];
    for (let i = 0; i < RESUMERS; i++) fresh.push(await signIn(url));
    await stopServer(child);
    const buildMs = await bulkJournal(schema, ENTRIES);
    child = startServer(schema, port);
    await ready(url);

    for (const who of fresh) clients.push(wsClient(url, { authorization: `Bearer ${who.token}` }));
    const pool = new Pool(url, { connections: 32 });
    await openLoop(pool, 'warm-up');
    // Alternating stages, so the machine's drift (other work on its two cores) falls on both.
    const rows: string[] = [];
    const ratios: number[] = [];
    const deltas: number[] = [];
    const plainRatios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const baseline = await openLoop(pool, `round ${round}: no subscriptions`);
      const plainLoad = resumers(clients, '');
      const plain = await openLoop(pool, `round ${round}: ${RESUMERS} accounts subscribing without after`);
      plain.resumes = await plainLoad.stop();
      await new Promise((r) => setTimeout(r, 1_000));
      const load = resumers(clients, '0');
      const loaded = await openLoop(pool, `round ${round}: ${RESUMERS} accounts resuming after "0"`);
      loaded.resumes = await load.stop();
      await new Promise((r) => setTimeout(r, 1_000));
      rows.push(row(baseline), row(plain), row(loaded));
      plainRatios.push(plain.p99 / baseline.p99);
      ratios.push(loaded.p99 / baseline.p99);
      deltas.push(loaded.p99 - baseline.p99);
    }
    await pool.close();
    ratios.sort((a, b) => a - b);
    deltas.sort((a, b) => a - b);
    plainRatios.sort((a, b) => a - b);
    const median = (xs: number[]) => xs[Math.floor(xs.length / 2)] as number;
    return [
      `### Resumes from after "0" vs other requests (${SERVER_ROOT === path.resolve(import.meta.dirname, '..') ? 'this checkout' : SERVER_ROOT})`,
      '',
      `A journal of ${ENTRIES.toLocaleString('en-US')} entries (one real entry copied by INSERT ... SELECT generate_series in ${(buildMs / 1000).toFixed(1)} s), none of them the resuming accounts'. GET /healthz open loop at ${RATE}/s, ${STAGE_SECONDS} s stages in turn: no subscriptions (the baseline); ${RESUMERS} fresh accounts each subscribing to orderUpdates without after over graphql-ws, leaving after 500 ms and subscribing again (the same churn without a resume); the same with after: "0" (a resume from the start each time); same server, same run.`,
      '',
      '| stage | requests | subscriptions | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      `p99 of the churn without after / baseline, per round: ${plainRatios.map((r) => r.toFixed(2)).join(', ')} (median ${median(plainRatios).toFixed(2)})`,
      '',
      `p99 with resumes / baseline, per round: ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)}); p99 with minus without: ${deltas.map((d) => d.toFixed(2)).join(', ')} ms (median ${median(deltas).toFixed(2)} ms)`,
    ].join('\n');
  } finally {
    for (const c of clients) await c.dispose();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await dropSchema(schema);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await run());
