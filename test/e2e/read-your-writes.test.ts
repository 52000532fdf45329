import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, placeOrder, trader } from '../helpers/trading.ts';

/**
 * Issue 11, "reads see your writes": open orders and balances come from the engine's
 * memory, so they show every acknowledged change even while the projection has applied
 * nothing; reads of the projected tables wait for it, and answer 503 past their bound.
 */
let server: RunningApp;
beforeAll(async () => {
  // The projector lets entries gather for ten minutes: nothing acknowledged below reaches the read tables.
  server = await startTestApp({ env: { PROJECTION_DELAY_MS: '600000' } });
});
afterAll(async () => {
  await server?.close();
});

describe('reads after an acknowledgement, with the projection stalled', () => {
  it('open orders and balances show the change at once; a read of the projected tables answers 503 PROJECTION_LAGGING at its bound', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    expect(await balancesOf(server.url, t)).toEqual({ 'TRADING:USDC': { available: '1000', held: '0' } });
    const placed = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'ryw', limitGtc: { price: '20000' } });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);

    const open = await api(server.url, 'GET', '/v1/orders/open', undefined, t.auth);
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    expect(open.body.orders.map((o: { orderId: string; clientOrderId: string; status: string }) => [o.orderId, o.clientOrderId, o.status])).toEqual([[placed.body.orderId, 'ryw', 'NEW']]);
    // 0.01 BTC at 20000 is 200 USDC, plus the largest fee it could pay, held.
    const balances = await balancesOf(server.url, t);
    expect(BigInt(balances['TRADING:USDC']?.held.replace('.', '') ?? '0')).toBeGreaterThan(0n);
    expect(Number(balances['TRADING:USDC']?.available) + Number(balances['TRADING:USDC']?.held)).toBe(1000);

    const canceled = await api(server.url, 'POST', '/v1/orders/cancel', { orderId: placed.body.orderId }, t.auth);
    // Cancel finds the order in the projected table: it waits for the projection, then gives up.
    expect(canceled.status).toBe(503);
    expect(canceled.body.code).toBe('PROJECTION_LAGGING');
    expect((await api(server.url, 'GET', '/v1/orders/open', undefined, t.auth)).body.orders).toHaveLength(1);
    expect(await server.database.prisma.order.count()).toBe(0);
  });
});

describe('projection lag', () => {
  it('is measured per journal entry, from its acknowledgement to the read tables reflecting it, and exposed at /metrics', async () => {
    const quick = await startTestApp();
    try {
      const metric = async () => {
        const text = await (await fetch(`${quick.url}/metrics`)).text();
        return Number(/^trading_projection_lag_seconds_count (\d+)/m.exec(text)?.[1] ?? 'NaN');
      };
      const before = await metric();
      const t = await trader(quick.url, { USDC: '1000' });
      expect((await placeOrder(quick.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '100' } })).status).toBe(200);
      await quick.app.services.orders.engine.readable();
      // The operator credit and the order: two entries at least.
      expect((await metric()) - before).toBeGreaterThanOrEqual(2);
    } finally {
      await quick.close();
    }
  });
});
