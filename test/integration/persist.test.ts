import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMarkets } from '../../src/services/markets.ts';
import { projectWriteSet } from '../../src/services/trading/persist.ts';
import type { SqlQueryable } from '../../src/infra/migrations.ts';
import { ensureSystemAccounts } from '../../src/services/trading/systemAccounts.ts';
import { WriteSet } from '../../src/services/trading/writeSet.ts';
import { api } from '../helpers/auth.ts';
import { startTestApp, testDatabase } from '../helpers/infra.ts';
import { balancesOf, ledgerViolations, placeOrder, projected, SOUND_LEDGER, trader } from '../helpers/trading.ts';
import { shiftableClock } from '../helpers/clock.ts';
import { pollUntil } from '../helpers/wait.ts';
import { databaseEngines as engines } from '../helpers/infra.ts';

/**
 * A batch is committed as one statement whose columns travel as PostgreSQL array
 * literals (src/services/trading/persist.ts). Both engines must store exactly what was
 * sent, whatever characters a client order id holds, and every part of a fill must land.
 */
/** Projects `ws` as the next entry of watermark `name`; true when it was applied. */
async function project(sql: SqlQueryable, ws: WriteSet, name: string, from?: bigint): Promise<boolean> {
  await sql.query(`INSERT INTO "ProjectionWatermark" (name, seq) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`, [name]);
  const [row] = await sql.query<{ seq: string }>(`SELECT seq::text AS seq FROM "ProjectionWatermark" WHERE name = $1`, [name]);
  const at = from ?? BigInt((row as { seq: string }).seq);
  return projectWriteSet(sql, ws, { name, from: at, to: at + 1n });
}

const AWKWARD_IDS = ['q"uo\\te,{x}', 'NULL', 'null', '{}', 'a,b"', '\\'];


describe.each(engines)('one-statement commit on %s', (_name, open) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('stores awkward client order ids verbatim and settles a fill in full', { timeout: 90_000 }, async () => {
    const { database, dispose } = await open();
    cleanups.push(dispose);
    const server = await startTestApp({ database });
    cleanups.push(() => server.close());

    const seller = await trader(server.url, { BTC: '1' });
    const buyer = await trader(server.url, { USDC: '100000' });
    for (const clientOrderId of AWKWARD_IDS) {
      const r = await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', clientOrderId, limitGtc: { price: '30000' } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const got = await api(server.url, 'GET', `/v1/orders/by-client-order-id/${encodeURIComponent(clientOrderId)}`, undefined, seller.auth);
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      expect(got.body.order).toMatchObject({ orderId: r.body.orderId, clientOrderId, status: 'NEW' });
    }
    const stored = await database.prisma.order.findMany({ where: { clientOrderId: { not: null } }, select: { clientOrderId: true } });
    expect(stored.map((o) => o.clientOrderId).sort()).toEqual([...AWKWARD_IDS].sort());

    const bid = await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.03', limitIoc: { price: '30000' } });
    expect(bid.status, JSON.stringify(bid.body)).toBe(200);
    const filled = await api(server.url, 'GET', `/v1/orders/${bid.body.orderId}`, undefined, buyer.auth);
    expect(filled.body.order).toMatchObject({ status: 'FILLED', cumQty: '0.03', avgPx: '30000' });

    expect(await database.prisma.trade.count()).toBe(6);
    expect(await ledgerViolations((text) => database.sql.query(text))).toEqual(SOUND_LEDGER);
    // 0.03 BTC at 30000 is 900 USDC, plus the 0.15% taker fee.
    expect((await balancesOf(server.url, buyer))['TRADING:USDC']).toEqual({ available: '99098.65', held: '0' });
    const sequence = await database.prisma.marketSequence.findFirstOrThrow({ where: { market: { symbol: 'BTC-USDC' } } });
    expect(sequence.lastMatchId).toBeGreaterThanOrEqual(3n);
  });

  it('fires a dead-man switch promptly (its firing shares the database with the commits it waits for)', { timeout: 90_000 }, async () => {
    const { database, dispose } = await open();
    cleanups.push(dispose);
    const clock = shiftableClock();
    const server = await startTestApp({ database, clock });
    cleanups.push(() => server.close());
    const t = await trader(server.url, { USDC: '1000' });
    const o = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '100' } });
    const armed = await api(server.url, 'POST', '/v1/orders/cancel-all-after', { requestId: 'dms', timeoutSec: 10 }, t.auth);
    expect(armed.body.status).toBe('ARMED');
    clock.skip(10_001);
    const status = async () => (await api(server.url, 'GET', `/v1/orders/${o.body.orderId}`, undefined, t.auth)).body.order.status;
    await pollUntil(async () => (await status()) === 'CANCELED', 3000);
    expect(await status()).toBe('CANCELED');
    // Arming and firing are journal entries; the projection keeps the switch's last state.
    await projected((text) => database.sql.query(text));
    const [sw] = await database.prisma.deadManSwitch.findMany();
    expect(sw).toMatchObject({ status: 'DISABLED', timeoutSec: 0, expiresAtTsNs: 0n, requestId: 'dms', armedAt: expect.any(Date) });
    expect(sw?.lastFiredAtTsNs).toBeGreaterThanOrEqual(BigInt(armed.body.expiresAtTsNs));
  });
});

describe.each(engines)('array-literal encoding on %s', (_name, open) => {
  it('stores any text verbatim, whatever quotes, backslashes, braces, commas or NULL spellings it holds', { timeout: 90_000 }, async () => {
    const { database, dispose } = await open();
    try {
      const awkward = fc.constantFrom('"', '\\', ',', '{', '}', ' ', 'NULL', 'null', '\\"', "'");
      const text = fc
        .array(fc.oneof(fc.string({ unit: 'grapheme' }), awkward), { maxLength: 6 })
        .map((parts) => parts.join(''))
        .filter((t) => !t.includes('\u0000'));
      let nextId = 1n;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.option(text, { nil: null }), { minLength: 1, maxLength: 5 }), async (memos) => {
          const ws = new WriteSet();
          const ids = memos.map(() => nextId++);
          memos.forEach((memo, i) => ws.transfers.push({ id: ids[i] as bigint, transferCode: 'DEPOSIT', timestampUs: 1n, symbolId: null, matchId: null, memo, flowId: null, legs: [] }));
          expect(await project(database.sql, ws, 'persist-text')).toBe(true);
          const stored = await database.sql.query<{ memo: string | null }>(
            `SELECT memo FROM "LedgerTransfer" WHERE id = ANY($1::bigint[]) ORDER BY id`,
            [ids.map(String)],
          );
          expect(stored.map((r) => r.memo)).toEqual(memos);
        }),
        { numRuns: 60 },
      );
    } finally {
      await dispose();
    }
  });
});

describe.each(engines)('projection on %s', (_name, open) => {
  it('applies an entry once: projecting it again changes nothing', { timeout: 90_000 }, async () => {
    const { database, dispose } = await open();
    try {
      const usdc = (await loadMarkets(database.prisma)).asset('USDC')!;
      const { custody } = await ensureSystemAccounts(database.prisma);
      const ws = new WriteSet();
      ws.balance(custody, 'TRADING', usdc.unifiedAssetId, 7n, 1n);
      ws.transfers.push({ id: 99n, transferCode: 'DEPOSIT', timestampUs: 1n, symbolId: null, matchId: null, memo: 'once', flowId: null, legs: [] });
      const balance = async () =>
        (await database.sql.query<{ available: string; held: string }>(
          `SELECT available::text, held::text FROM "Balance" WHERE "accountId" = $1 AND "ledgerAccount" = 'TRADING' AND "assetId" = $2`,
          [custody, usdc.unifiedAssetId],
        ))[0];
      expect(await project(database.sql, ws, 'twice', 0n)).toBe(true);
      expect(await balance()).toEqual({ available: '7', held: '1' });
      // The same entry again, as a projector restarted from an older watermark would send it.
      expect(await project(database.sql, ws, 'twice', 0n)).toBe(false);
      expect(await balance()).toEqual({ available: '7', held: '1' });
      expect(await database.prisma.ledgerTransfer.count({ where: { id: 99n } })).toBe(1);
    } finally {
      await dispose();
    }
  });
});

describe('the group statement on PostgreSQL', () => {
  it('is prepared once per connection and run again without being parsed and planned anew', { timeout: 90_000 }, async () => {
    const database = await testDatabase();
    try {
      const usdc = (await loadMarkets(database.prisma)).asset('USDC')!;
      const { custody } = await ensureSystemAccounts(database.prisma);
      // One transaction is one connection, whose prepared statements PostgreSQL lists.
      const prepared = await database.sql.transaction(async (tx) => {
        for (const amount of [1n, 2n, 3n]) {
          const ws = new WriteSet();
          ws.balance(custody, 'TRADING', usdc.unifiedAssetId, amount, 0n);
          await project(tx, ws, 'persist-test');
        }
        return tx.query<{ statement: string; runs: number }>(
          `SELECT statement, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements`,
        );
      });
      expect(prepared).toHaveLength(1);
      expect(prepared[0]?.runs).toBe(3);
      expect(prepared[0]?.statement).toContain('INSERT INTO "Balance"');
      const [balance] = await database.sql.query<{ available: string }>(
        `SELECT available::text FROM "Balance" WHERE "accountId" = $1 AND "ledgerAccount" = 'TRADING' AND "assetId" = $2`,
        [custody, usdc.unifiedAssetId],
      );
      expect(balance?.available).toBe('6');
    } finally {
      await database.drop();
    }
  });
});
