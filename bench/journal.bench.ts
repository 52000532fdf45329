import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { openDatabase } from '../src/infra/database.ts';
import { loadMarkets } from '../src/services/markets.ts';
import type { SqlQueryable } from '../src/infra/migrations.ts';
import { Journal } from '../src/services/trading/journal.ts';
import { advanceEngineFence, projectWriteSet } from '../src/services/trading/persist.ts';
import { entryEvents } from '../src/services/trading/streams.ts';
import { WriteSet, type LegRow, type OrderVersion } from '../src/services/trading/writeSet.ts';

/**
 * The trading journal on the machine's PostgreSQL: what acknowledging a group costs now
 * (one journal row) against what it cost before (the group's rows written to the read
 * tables, which is now the projector's work behind the acknowledgement), for groups of 1,
 * 10 and 100 orders; and replaying 100,000 stream events from the journal.
 */
const URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const SCHEMA = `bench_journal_${process.pid}`;

/** No deadline to speak of: the bench measures appends, not refusals. */
const FAR = Number.POSITIVE_INFINITY;
let nextId = 1_800_000_000_000_000n;
let nextMatch = 1n;
/** The ids the rows refer to: one real account and market, so the foreign keys hold. */
const ref = { account: 0n, symbolId: 0, base: 0, quote: 0 };

/** A group as the order benchmark makes them: every second order fills a resting one (a transfer of eight legs, two trades). */
function group(orders: number): WriteSet {
  const ws = new WriteSet();
  const now = new Date();
  const nowNs = BigInt(now.getTime()) * 1_000_000n;
  for (let i = 0; i < orders; i++) {
    const id = nextId++;
    const order: OrderVersion = {
      id, accountPublicId: 'Acc17', publicId: `Ord${id}`, accountId: ref.account, symbolId: ref.symbolId, clientOrderId: null, side: 'BUY', orderType: 'LIMIT', tif: 'GTC',
      status: 'NEW', isOpen: true, closeReason: null, price: 30_000_000_000_000n, origQty: 1_000n, cumQty: 0n, leavesQty: 1_000n,
      inheritedCumQty: 0n, cumNotionalQ9: 0n, inheritedNotionalQ9: 0n, feeAsset: 'QUOTE', postOnly: false, stpMode: 'EXPIRE_MAKER',
      expireAt: null, expireAtTsNs: null, createdAt: now, acceptedAtTsNs: nowNs, terminalAt: null, lineageId: `Lin${id}`, generation: 1,
      replacesOrderId: null, marketClientRefPrice: null, marketMaxSlippageBps: null, marketMaxSlippageTicks: null, submittedMaxQuoteDebit: null,
      version: 1, heldE18: 30_045_000_000_000_000_000n, prioritySeq: id, oco: false, originScope: 'DIRECT', originTriggerId: null, originTriggerType: null, childSeq: 0,
    };
    ws.newOrders.set(id, order);
    ws.order(order);
    if (i % 2 === 0) continue;
    // Fills the previous order of the group against this one.
    ws.order({ ...order, version: 2, status: 'FILLED', isOpen: false, cumQty: 1_000n, leavesQty: 0n, terminalAt: now });
    const matchId = nextMatch++;
    const transferId = nextId++;
    const legs: LegRow[] = Array.from({ length: 8 }, (_, k) => ({
      accountId: ref.account, ledgerAccount: 'TRADING', assetId: k % 2 === 0 ? ref.base : ref.quote, amount: 30_000_000_000_000_000_000n, isDebit: k % 2 === 0,
      balanceAfter: 123_456_789_000_000_000_000n, transferCode: 'TRADE', sourceAccountId: ref.account, sourceKind: 'TRADING_ACCOUNT', destinationAccountId: ref.account, destinationKind: 'TRADING_ACCOUNT',
    }));
    ws.transfers.push({ id: transferId, transferCode: 'TRADE', timestampUs: nowNs / 1000n, symbolId: ref.symbolId, matchId, memo: null, flowId: null, legs });
    for (const isMaker of [true, false]) {
      ws.trades.push({
        symbolId: ref.symbolId, matchId, orderId: id, accountId: ref.account, lineageId: `Lin${id}`, generation: 1, side: 'BUY', price: 30_000_000_000_000n, qty: 1_000n,
        isMaker, fee: 45_000_000_000_000n, feeAsset: 'QUOTE', feeIsRebate: false, executedAt: now, executedAtTsNs: nowNs, transferId,
      });
    }
  }
  ws.balance(ref.account, 'TRADING', ref.base, -5n, 6n);
  ws.balance(ref.account, 'TRADING', ref.quote, 5n, -6n);
  ws.sequences.set(ref.symbolId, { lastMatchId: nextMatch, lastPrioritySeq: nextId, lastBookSeq: nextId });
  return ws;
}

/** One connection, as a commit uses one, with its backend's CPU time readable from /proc. */
async function connection(): Promise<SqlQueryable & { cpuMs(): Promise<number>; end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: URL, options: `-c search_path="${SCHEMA}"` });
  await client.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
  return {
    exec: async (s) => void (await client.query(s)),
    query: async <T>(text: string, params: unknown[] = [], options?: { prepare?: boolean }) =>
      (await client.query(options?.prepare ? { name: createHash('sha1').update(text).digest('base64url'), text, values: params } : { text, values: params })).rows as T[],
    async cpuMs() {
      // utime and stime, in clock ticks (100 per second on Linux).
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    end: () => client.end(),
  };
}

async function timed(rounds: number, fn: () => Promise<unknown>, cpuMs: () => Promise<number>) {
  for (let i = 0; i < 20; i++) await fn();
  const latencies: number[] = [];
  const cpu0 = await cpuMs();
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    await fn();
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const cpu = (await cpuMs()) - cpu0;
  latencies.sort((a, b) => a - b);
  return { p50: latencies[Math.floor(rounds / 2)] as number, p99: latencies[Math.floor(rounds * 0.99)] as number, cpuMs: cpu };
}

export async function run(): Promise<string> {
  const database = await openDatabase({ kind: 'postgres', url: URL, schema: SCHEMA });
  const conn = await connection();
  const rows: string[] = [];
  try {
    const market = (await loadMarkets(database.prisma)).market('BTC-USDC');
    if (!market) throw new Error('BTC-USDC is not configured');
    const account = await database.prisma.account.create({ data: { publicId: 'Acc17', kind: 'ROOT' } });
    Object.assign(ref, { account: account.id, symbolId: market.symbolId, base: market.base.unifiedAssetId, quote: market.quote.unifiedAssetId });
    const fence = await advanceEngineFence(database.sql, 'bench');
    const journal = new Journal(conn, () => fence);
    await journal.open(0n);
    await conn.query(`INSERT INTO "ProjectionWatermark" (name, seq) VALUES ('bench', 0)`);
    let watermark = 0n;
    for (const size of [1, 10, 100]) {
      const rounds = size === 100 ? 100 : 300;
      const append = await timed(rounds, () => journal.append(group(size), FAR), conn.cpuMs);
      const project = await timed(
        rounds,
        async () => {
          await projectWriteSet(conn, group(size), { name: 'bench', from: watermark, to: watermark + 1n });
          watermark += 1n;
        },
        conn.cpuMs,
      );
      const bytes = (await conn.query<{ b: string }>(`SELECT avg(octet_length(payload))::int::text AS b FROM (SELECT payload FROM "TradingJournal" ORDER BY seq DESC LIMIT 20) x`))[0]?.b;
      const perOrderUs = (ms: number) => ((ms * 1000) / (rounds * size)).toFixed(0);
      rows.push(
        `| ${size} | journal append (the acknowledgement) | ${append.p50.toFixed(2)} | ${append.p99.toFixed(2)} | ${perOrderUs(append.cpuMs)} | ${(Number(bytes) / size).toFixed(0)} B |`,
        `| ${size} | baseline: the group's rows in the read tables (the commit before the journal; now the projector's) | ${project.p50.toFixed(2)} | ${project.p99.toFixed(2)} | ${perOrderUs(project.cpuMs)} | |`,
        `| ${size} | ratio append / baseline | ${(append.p50 / project.p50).toFixed(2)} | ${(append.p99 / project.p99).toFixed(2)} | ${(append.cpuMs / Math.max(project.cpuMs, 1)).toFixed(2)} | |`,
      );
    }

    // Replay: 400 entries of 100 orders (150 order versions and 100 fills each: 100,000 events), read
    // back and turned into one account's events, as a stream resumed far back does.
    const first = journal.lastSeq;
    for (let i = 0; i < 400; i++) await journal.append(group(100), FAR);
    const started = process.hrtime.bigint();
    let events = 0;
    for (let cursor = first; cursor < journal.lastSeq; ) {
      const entries = await journal.read(cursor, journal.lastSeq, 500);
      for (const { seq, ws } of entries) {
        const e = entryEvents(seq, ws, () => 'BTC-USDC');
        events += e.orders.filter((o) => o.accountPublicId === 'Acc17').length + e.fills.filter((f) => f.accountPublicId === 'Acc17').length;
      }
      cursor = (entries[entries.length - 1] as { seq: bigint }).seq;
    }
    const replayMs = Number(process.hrtime.bigint() - started) / 1e6;
    return [
      '### Trading journal (src/services/trading/journal.ts, projector.ts)',
      'One connection to the machine\'s PostgreSQL, each statement its own commit. Groups as the order benchmark makes them (every second order fills the one before it: eight ledger legs and two trade rows per fill). "CPU/order" is the PostgreSQL backend\'s CPU per order, from /proc (10 ms ticks: coarse for small runs).',
      '| orders per group | commit | p50 ms | p99 ms | PostgreSQL CPU/order µs | journal bytes/order |\n|---:|---|---:|---:|---:|---:|\n' + rows.join('\n'),
      `Replay of ${events.toLocaleString('en-US')} stream events (400 entries of 150 order versions and 100 fills) from the journal: ${replayMs.toFixed(0)} ms, ${Math.round((events / replayMs) * 1000).toLocaleString('en-US')} events/s.`,
    ].join('\n\n');
  } finally {
    await conn.end();
    await database.close();
    const admin = new pg.Client(URL);
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await admin.end();
  }
}
