import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { api, type SignedIn } from '../helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.ts';
import { dropSchema, TEST_OPERATOR_TOKEN, uniqueName } from '../helpers/infra.ts';
import { ledgerViolations, placeOrder, projected, SOUND_LEDGER, trader } from '../helpers/trading.ts';

/**
 * Durability: the real server process is killed with SIGKILL in the middle of a burst of
 * orders, restarted on the same database, and the state it comes back with is checked
 * against everything it acknowledged.
 */
const root = path.resolve(import.meta.dirname, '../..');
const schema = uniqueName('kill');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function start(port: number, options: { schema?: string; env?: Record<string, string> } = {}): ChildProcess {
  const db = options.schema ?? schema;
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: db,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: `${db}:`,
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready');
}

async function sql<T>(text: string, params: unknown[] = [], inSchema = schema): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${inSchema}"` });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const lagSchema = uniqueName('lag');
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await dropSchema(schema);
  await dropSchema(lagSchema);
});

describe('SIGKILL during a burst of orders', () => {
  it('loses no acknowledged order or fill, leaves nothing half-written, conserves balances, restores the book and the dead-man switch, and takes its engine lock back when it loses it', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const first = start(port);
    children.push(first);
    await ready(url);

    const a = await trader(url, { BTC: '100', USDC: '10000000' });
    const b = await trader(url, { BTC: '100', USDC: '10000000' });
    // A resting order and an armed dead-man switch that must survive the crash.
    const guarded = await placeOrder(url, a, { symbol: 'SOL-USDC', side: 'BUY', baseQty: '1', limitGtc: { price: '10' } });
    expect(guarded.status).toBe(200);
    // Outside the switch's scope (another symbol): must still be open after it fires.
    const outOfScope = await placeOrder(url, a, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '1', limitGtc: { price: '10' } });
    expect(outOfScope.status).toBe(200);
    const armed = await api(url, 'POST', '/v1/orders/cancel-all-after', { requestId: 'dms', timeoutSec: 60, symbol: 'SOL-USDC' }, a.auth);
    expect(armed.body.status).toBe('ARMED');

    const acknowledged: string[] = [];
    let i = 0;
    const send = async (who: SignedIn, side: 'BUY' | 'SELL') => {
      const price = (30000 + ((i++ * 7) % 21) - 10).toFixed(2);
      try {
        const r = await placeOrder(url, who, { symbol: 'BTC-USDC', side, baseQty: '0.01', limitGtc: { price } });
        if (r.status === 200) acknowledged.push(r.body.orderId as string);
      } catch {
        // the connection died with the server: not acknowledged
      }
    };
    const burst = Array.from({ length: 400 }, (_, k) => send(k % 2 === 0 ? a : b, k % 2 === 0 ? 'BUY' : 'SELL'));
    while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 5));
    first.kill('SIGKILL');
    await Promise.allSettled(burst);
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);

    // Time passes while the server is down: the switch's deadline is now behind us.
    await sql('UPDATE "DeadManSwitch" SET "expiresAtTsNs" = 1 WHERE status = $1', ['ARMED']);

    const second = start(port);
    children.push(second);
    await ready(url);

    // Every acknowledged order is there.
    const stored = await sql<{ publicId: string }>('SELECT "publicId" FROM "Order"');
    const ids = new Set(stored.map((r) => r.publicId));
    for (const id of acknowledged) expect(ids.has(id), id).toBe(true);

    // Nothing half-written: each order's fills add up to its cumQty; fills come in maker/taker pairs.
    const mismatched = await sql(`
      SELECT o.id FROM "Order" o LEFT JOIN "Trade" t ON t."orderId" = o.id
      GROUP BY o.id, o."cumQty" HAVING o."cumQty" <> COALESCE(sum(t.qty), 0)`);
    expect(mismatched).toEqual([]);
    const unpaired = await sql('SELECT "symbolId", "matchId" FROM "Trade" GROUP BY 1, 2 HAVING count(*) <> 2');
    expect(unpaired).toEqual([]);
    const leaves = await sql('SELECT id FROM "Order" WHERE "origQty" <> "cumQty" + "leavesQty" AND "isOpen"');
    expect(leaves).toEqual([]);

    // Balances conserve: legs of every asset sum to zero, each balance equals its legs, and
    // reservations equal what the open orders still hold.
    expect(await ledgerViolations(sql)).toEqual(SOUND_LEDGER);

    // The book is back: every level of both sides, and every resting order in the same
    // priority (best price, then earliest prioritySeq), proven by taking them one by one.
    const open = await sql<{ publicId: string; side: 'BUY' | 'SELL'; price: string; leavesQty: string }>(
      `SELECT "publicId", side, price::text, "leavesQty"::text FROM "Order" WHERE "isOpen" AND "symbolId" = 1 ORDER BY "prioritySeq"`,
    );
    expect(open.length).toBeGreaterThan(0);
    const book = await api(url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC&depth=500');
    const levels = (side: 'BUY' | 'SELL') => {
      const m = new Map<string, { qty: bigint; orders: number }>();
      for (const o of open.filter((x) => x.side === side)) {
        const price = (Number(o.price) / 1e9).toString();
        const l = m.get(price) ?? { qty: 0n, orders: 0 };
        m.set(price, { qty: l.qty + BigInt(o.leavesQty), orders: l.orders + 1 });
      }
      return [...m].sort(([a], [b]) => (side === 'BUY' ? Number(b) - Number(a) : Number(a) - Number(b))).map(([price, l]) => ({ price, qty: (Number(l.qty) / 1e6).toString(), orders: l.orders }));
    };
    expect(book.body.bids).toEqual(levels('BUY'));
    expect(book.body.asks).toEqual(levels('SELL'));

    const sweeper = await trader(url, { BTC: '100', USDC: '10000000' });
    for (const side of ['SELL', 'BUY'] as const) {
      const priority = open
        .map((o, seq) => ({ ...o, seq }))
        .filter((o) => o.side === side)
        .sort((x, y) => (x.price === y.price ? x.seq - y.seq : (BigInt(x.price) < BigInt(y.price)) === (side === 'SELL') ? -1 : 1));
      for (const maker of priority) {
        const taken = await placeOrder(url, sweeper, {
          symbol: 'BTC-USDC',
          side: side === 'SELL' ? 'BUY' : 'SELL',
          baseQty: (Number(maker.leavesQty) / 1e6).toString(),
          limitIoc: { price: (Number(maker.price) / 1e9).toFixed(2) },
        });
        expect(taken.status, JSON.stringify(taken.body)).toBe(200);
        await projected(sql);
        const [hit] = await sql<{ publicId: string }>(
          `SELECT o."publicId" FROM "Trade" t JOIN "Order" o ON o.id = t."orderId" WHERE t."isMaker" AND t."symbolId" = 1 ORDER BY t."matchId" DESC LIMIT 1`,
        );
        expect(hit?.publicId, `${side} at ${maker.price}`).toBe(maker.publicId);
      }
    }
    expect((await api(url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC')).body).toMatchObject({ bids: [], asks: [] });

    // The dead-man switch armed before the crash fires after the restart.
    for (let k = 0; k < 40; k++) {
      const o = await api(url, 'GET', `/v1/orders/${guarded.body.orderId}`, undefined, a.auth);
      if (o.body.order.status === 'CANCELED') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const after = await api(url, 'GET', `/v1/orders/${guarded.body.orderId}`, undefined, a.auth);
    expect(after.body.order.status).toBe('CANCELED');
    expect((await api(url, 'GET', `/v1/orders/${outOfScope.body.orderId}`, undefined, a.auth)).body.order.status).toBe('NEW');

    // When the connection holding the engine lock dies, the process stays up: it takes the
    // lock back under a new fence epoch and serves again (test/e2e/database-reset.test.ts
    // does this under load).
    let exited = false;
    second.once('exit', () => (exited = true));
    const [before] = await sql<{ epoch: string }>(`SELECT epoch::text FROM "EngineFence" WHERE name = 'trading-engine'`);
    await sql('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [`lock:${schema}:trading-engine`]);
    for (let k = 0; k < 100; k++) {
      const [now] = await sql<{ epoch: string }>(`SELECT epoch::text FROM "EngineFence" WHERE name = 'trading-engine'`);
      if (now?.epoch !== before?.epoch) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await ready(url);
    const [now] = await sql<{ epoch: string }>(`SELECT epoch::text FROM "EngineFence" WHERE name = 'trading-engine'`);
    expect(BigInt(now?.epoch ?? 0)).toBe(BigInt(before?.epoch ?? 0) + 1n);
    expect(exited).toBe(false);
  }, 120_000);
});

describe('SIGKILL while the projection lags', () => {
  it('replays the journal past the watermark on restart: every acknowledged order, fill and balance is in the read tables', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const lagSql = <T>(text: string, params: unknown[] = []) => sql<T>(text, params, lagSchema);
    // The projector waits ten minutes before applying anything: every acknowledgement below
    // lives only in the journal when the process dies.
    const first = start(port, { schema: lagSchema, env: { PROJECTION_DELAY_MS: '600000' } });
    children.push(first);
    await ready(url);

    const a = await trader(url, { BTC: '10', USDC: '1000000' });
    const b = await trader(url, { BTC: '10', USDC: '1000000' });
    const acknowledged: string[] = [];
    for (let k = 0; k < 30; k++) {
      const [who, side] = k % 2 === 0 ? [a, 'BUY'] : [b, 'SELL'];
      // Every third pair rests a little apart, so the book is not empty after the crash.
      const price = k % 6 < 2 ? (k % 2 === 0 ? '29990' : '30010') : '30000';
      const r = await placeOrder(url, who, { symbol: 'BTC-USDC', side, baseQty: '0.01', limitGtc: { price } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      acknowledged.push(r.body.orderId as string);
    }
    const [lag] = await lagSql<{ watermark: string; journal: string; orders: number }>(
      `SELECT (SELECT seq FROM "ProjectionWatermark" WHERE name = 'trading')::text AS watermark,
              (SELECT max(seq) FROM "TradingJournal")::text AS journal, (SELECT count(*)::int FROM "Order") AS orders`,
    );
    expect(BigInt(lag!.journal)).toBeGreaterThan(BigInt(lag!.watermark));
    expect(lag!.orders).toBeLessThan(acknowledged.length);
    const book = (await api(url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC&depth=50')).body;
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    const second = start(port, { schema: lagSchema });
    children.push(second);
    await ready(url);
    const [after] = await lagSql<{ watermark: string; journal: string }>(
      `SELECT (SELECT seq FROM "ProjectionWatermark" WHERE name = 'trading')::text AS watermark, (SELECT max(seq) FROM "TradingJournal")::text AS journal`,
    );
    expect(after!.watermark).toBe(lag!.journal);
    const stored = await lagSql<{ publicId: string }>('SELECT "publicId" FROM "Order"');
    expect(new Set(stored.map((r) => r.publicId))).toEqual(new Set(acknowledged));
    expect(await ledgerViolations((text) => lagSql(text))).toEqual(SOUND_LEDGER);
    const unpaired = await lagSql('SELECT "symbolId", "matchId" FROM "Trade" GROUP BY 1, 2 HAVING count(*) <> 2');
    expect(unpaired).toEqual([]);
    // The rebuilt book is the one acknowledged before the crash (only its sequence moved on).
    const rebuilt = (await api(url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC&depth=50')).body;
    expect({ bids: rebuilt.bids, asks: rebuilt.asks }).toEqual({ bids: book.bids, asks: book.asks });
    expect(rebuilt.bids.length + rebuilt.asks.length).toBeGreaterThan(0);
    second.kill('SIGKILL');
  }, 120_000);
});
