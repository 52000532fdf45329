import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderUpdatesDocument } from '../generated/graphql/graphql.ts';
import { api } from '../helpers/auth.ts';
import { wsClient, type GraphQLResponse } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, placeOrder, projected, trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';
import { shiftableClock } from '../helpers/clock.ts';


const clock = shiftableClock();
let server: RunningApp;
beforeAll(async () => {
  // Sessions outlive the day this file skips.
  server = await startTestApp({ clock, env: { SESSION_TTL_SECONDS: String(7 * 24 * 3600) } });
});
afterAll(async () => {
  await server?.close();
});

describe('a GTD order found expired by a modify', () => {
  it('refuses the modify, and the expiry it applied is committed, published and releases the hold', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    const client = wsClient(server.url, { authorization: t.auth.authorization as string });
    const updates: GraphQLResponse<{ orderUpdates: { orderId: string; status: string; version: number } }>[] = [];
    client.subscribe({ query: OrderUpdatesDocument.toString() }, { next: (r) => void updates.push(r as never), error: () => undefined, complete: () => undefined });
    await new Promise((r) => setTimeout(r, 300));

    const expireAt = new Date(clock.now().getTime() + 60_000).toISOString();
    const o = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtd: { price: '100', expireAt } });
    expect(o.status, JSON.stringify(o.body)).toBe(200);
    // The modify, sent the moment the expiry has passed, usually finds it before the 250 ms
    // expiry sweep does; either way the expiry must be committed and published.
    clock.skip(61_000);
    const modify = await api(server.url, 'POST', '/v1/orders/modify', { orderId: o.body.orderId, newQty: '0.02' }, t.auth);
    expect(modify.status).toBe(404);
    expect(modify.body.code).toBe('ORDER_NOT_FOUND');

    await pollUntil(() => updates.some((u) => u.data?.orderUpdates.status === 'EXPIRED'));
    expect(updates.map((u) => u.data?.orderUpdates.status)).toEqual(['NEW', 'EXPIRED']);
    expect(updates.map((u) => u.data?.orderUpdates.version)).toEqual([1, 2]);
    const stored = (await api(server.url, 'GET', `/v1/orders/${o.body.orderId}`, undefined, t.auth)).body.order;
    expect(stored).toMatchObject({ status: 'EXPIRED', version: 2 });
    expect((await balancesOf(server.url, t))['TRADING:USDC']).toEqual({ available: '1000', held: '0' });
    await client.dispose();
  });
});

describe('a GTD order found expired by a cancel or a replace', () => {
  it.each([
    ['cancel', (orderId: string) => ['/v1/orders/cancel', { orderId }] as const],
    ['replace', (orderId: string) => ['/v1/orders/replace', { orderId, order: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '101' } } }] as const],
  ])('%s: the order ends EXPIRED (not canceled, not replaced) and the request is refused', async (_name, request) => {
    const t = await trader(server.url, { USDC: '1000' });
    const expireAt = new Date(clock.now().getTime() + 60_000).toISOString();
    const o = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtd: { price: '100', expireAt } });
    expect(o.status, JSON.stringify(o.body)).toBe(200);
    // Sent the moment the expiry has passed: usually before the 250 ms sweep finds it.
    clock.skip(61_000);
    const [path, body] = request(o.body.orderId);
    const r = await api(server.url, 'POST', path, body, t.auth);
    expect(r.status, JSON.stringify(r.body)).toBe(404);
    expect(r.body.code).toBe('ORDER_NOT_FOUND');
    await projected((text) => server.database.sql.query(text));
    const row = await server.database.prisma.order.findUniqueOrThrow({ where: { publicId: o.body.orderId }, select: { status: true, closeReason: true } });
    expect(row).toEqual({ status: 'EXPIRED', closeReason: 'GTD_EXPIRED' });
    expect((await api(server.url, 'GET', '/v1/orders/open', undefined, t.auth)).body.orders).toEqual([]);
    expect((await balancesOf(server.url, t))['TRADING:USDC']).toEqual({ available: '1000', held: '0' });
  });
});

describe('client order id retention', () => {
  it('frees an id a day after its order was accepted, and forgets the expired reservation', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    const order = { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'day-old', limitGtc: { price: '100' } };
    expect((await placeOrder(server.url, t, order)).status).toBe(200);
    expect((await placeOrder(server.url, t, order)).status).toBe(409);
    const reservations = async () => {
      await projected((text) => server.database.sql.query(text));
      return server.database.prisma.clientOrderIdReservation.count({ where: { clientOrderId: 'day-old' } });
    };
    expect(await reservations()).toBe(1);

    clock.skip(24 * 3600_000 + 61_000);
    await pollUntil(async () => (await reservations()) === 0, 2000, 50);
    expect(await reservations()).toBe(0);
    const again = await placeOrder(server.url, t, order);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await reservations()).toBe(1);
  });
});
