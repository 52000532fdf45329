import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { placeOrder, trader } from '../helpers/trading.ts';

/**
 * Issue 22: two creates with one clientTriggerId, the first ending between the second's
 * look-up of ended triggers in the table and its job. The engine keeps the ended id until
 * that read and the projection have passed it, so the second is answered with the first
 * (as a repeat) and no duplicate is journaled: the unique index would stop the projection.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

const body = (clientTriggerId: string) => ({
  trigger: { symbol: 'BTC-USDC', qty: '0.1', clientTriggerId, stopLoss: { side: 'SELL', triggerPrice: '1000', child: { marketIoc: { maxSlippageBps: 100 } } } },
});

describe('a clientTriggerId whose trigger ends while a repeat is in flight', () => {
  it('is answered as the ended trigger, journaled once, and the projection keeps serving', async () => {
    const engine = server.app.services.orders.engine;
    const owner = await trader(server.url, { BTC: '1' });
    const other = await trader(server.url, { USDC: '1000' });
    const otherOrder = await placeOrder(server.url, other, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '100' } });
    expect(otherOrder.status).toBe(200);

    // The second create reads the table first (nothing there yet), then waits at the engine
    // while the first is created and canceled, and its end projected.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const atEngine = new Promise<void>((r) => (reached = r));
    const createTrigger = engine.createTrigger.bind(engine);
    let calls = 0;
    engine.createTrigger = async (...args: Parameters<typeof createTrigger>) => {
      if (calls++ === 0) {
        reached();
        await gate;
      }
      return createTrigger(...args);
    };
    let first: Awaited<ReturnType<typeof api>>;
    try {
      const second = api(server.url, 'POST', '/v1/triggers', body('race'), owner.auth);
      await atEngine;
      first = await api(server.url, 'POST', '/v1/triggers', body('race'), owner.auth);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const canceled = await api(server.url, 'POST', '/v1/triggers/cancel', { clientTriggerId: 'race' }, owner.auth);
      expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
      // The end is projected before the second's job runs: only the engine's memory still tells it.
      await engine.readable();
      release();
      const r = await second;
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.triggerId).toBe(first.body.triggerId);
    } finally {
      engine.createTrigger = createTrigger;
    }

    await engine.readable();
    const rows = await server.database.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "Trigger" WHERE "clientTriggerId" = 'race'`);
    expect(rows[0]?.n).toBe('1');
    for (const path of [`/v1/orders/${otherOrder.body.orderId}`, '/v1/transfers', `/v1/triggers/${first.body.triggerId}`]) {
      const who = path.includes('triggers') ? owner : other;
      const read = await api(server.url, 'GET', path, undefined, who.auth);
      expect(read.status, `${path}: ${JSON.stringify(read.body)}`).toBe(200);
    }
    // Once nothing reads it any more, a new create with the id finds the ended trigger in the table.
    const later = await api(server.url, 'POST', '/v1/triggers', body('race'), owner.auth);
    expect(later.status).toBe(200);
    expect(later.body.triggerId).toBe(first.body.triggerId);
  });

  it('many concurrent repeats racing cancels never journal a duplicate', async () => {
    const engine = server.app.services.orders.engine;
    const owner = await trader(server.url, { BTC: '10' });
    const ids = Array.from({ length: 8 }, (_, i) => `burst-${i}`);
    await Promise.all(
      ids.map(async (id) => {
        const answers = await Promise.all([
          api(server.url, 'POST', '/v1/triggers', body(id), owner.auth),
          api(server.url, 'POST', '/v1/triggers/cancel', { clientTriggerId: id }, owner.auth),
          api(server.url, 'POST', '/v1/triggers', body(id), owner.auth),
          api(server.url, 'POST', '/v1/triggers/cancel', { clientTriggerId: id }, owner.auth),
          api(server.url, 'POST', '/v1/triggers', body(id), owner.auth),
        ]);
        for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBeLessThan(500);
      }),
    );
    await engine.readable();
    const rows = await server.database.sql.query<{ id: string; n: string }>(
      `SELECT "clientTriggerId" AS id, count(*)::text AS n FROM "Trigger" WHERE "clientTriggerId" LIKE 'burst-%' GROUP BY 1`,
    );
    for (const r of rows) expect(r.n, r.id).toBe('1');
  });
});
