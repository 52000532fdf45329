import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { startTestApp, testDatabase, type RunningApp } from '../helpers/infra.ts';
import { placeOrder, projected, trader } from '../helpers/trading.ts';

/**
 * An order whose journal append cannot complete (here the append waits on a lock another
 * connection holds, as a statement held up by a network partition waits) is refused at
 * the commit deadline, and the held-up statement, when it finally runs, stores nothing:
 * no order executes later than the bound after it arrived. Trading then recovers without
 * a restart.
 */
let server: RunningApp;
let database: Awaited<ReturnType<typeof testDatabase>>;
beforeAll(async () => {
  database = await testDatabase();
  server = await startTestApp({ database, env: { COMMIT_DEADLINE_MS: '1000' } });
});
afterAll(async () => {
  await server?.close();
  await database?.drop();
});

describe('the commit deadline', () => {
  it('refuses an order whose append is held up, stores none of it when the append runs late, and trades again without a restart', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const first = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'before', limitGtc: { price: '100' } });
    expect(first.status).toBe(200);

    // Another connection locks the fence row every append updates.
    const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${database.schema}"` });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT * FROM "EngineFence" FOR UPDATE`);
      const held = placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'held-up', limitGtc: { price: '100' } });
      // Without the deadline this answer would wait for the lock (4 s) and then succeed.
      const lockedFor = new Promise((r) => setTimeout(r, 4_000));
      const refused = await held;
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.code).toBe('COMMIT_FAILED');
      await lockedFor;
      await blocker.query('COMMIT');
    } finally {
      await blocker.end();
    }

    // The held-up append ran once the lock went, past its deadline: nothing of it is stored.
    let again = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'after', limitGtc: { price: '100' } });
    for (let i = 0; i < 100 && again.status === 503; i++) {
      expect(again.body.code).toBe('REBUILDING');
      await new Promise((r) => setTimeout(r, 50));
      again = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'after', limitGtc: { price: '100' } });
    }
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await projected((text) => server.database.sql.query(text));
    const journal = await server.database.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "TradingJournal" WHERE payload LIKE '%"held-up"%'`);
    expect(journal[0]?.n).toBe(0);
    const orders = await server.database.prisma.order.findMany({ where: { clientOrderId: { in: ['before', 'held-up', 'after'] } }, select: { clientOrderId: true } });
    expect(orders.map((o) => o.clientOrderId).sort()).toEqual(['after', 'before']);
    // The refused order's client order id is free: it was never taken.
    const retry = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'held-up', limitGtc: { price: '100' } });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const open = await api(server.url, 'GET', '/v1/orders/open', undefined, t.auth);
    expect(open.body.orders).toHaveLength(3);
  });
});
