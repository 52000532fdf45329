import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { GetOrderDocument } from '../generated/graphql/graphql.ts';
import { gql } from '../helpers/graphql.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, ledgerViolations, placeOrder, SOUND_LEDGER, trader } from '../helpers/trading.ts';

/**
 * Inputs found by fuzzing the trading API that once got a 500 or a 503, or left a change
 * half applied. Each must be a 400 of section 7's form that changes nothing, and trading
 * must go on for everyone else.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

async function expectNothingStuck(who: Awaited<ReturnType<typeof trader>>) {
  expect((await api(server.url, 'GET', '/v1/orders/open', undefined, who.auth)).body.orders).toEqual([]);
  expect(await ledgerViolations((text) => server.database.sql.query(text))).toEqual(SOUND_LEDGER);
}

describe('a quote-debit cap too small to buy anything', () => {
  it.each([
    ['limitIoc', { limitIoc: { price: '100', maxQuoteDebit: '0.000001' } }],
    ['marketIoc', { marketIoc: { clientRefPrice: '100', maxSlippageBps: 100, maxQuoteDebit: '0.000001' } }],
  ])('is refused on %s before anything is reserved or recorded', async (variant, body) => {
    const t = await trader(server.url, { USDC: '1000' });
    const r = await placeOrder(server.url, t, { symbol: 'SOL-USDC', side: 'BUY', baseQty: '1', ...body });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.violations[0]).toMatchObject({ fieldPath: `order.${variant}.maxQuoteDebit`, ruleId: 'too-small' });
    expect((await balancesOf(server.url, t))['TRADING:USDC']).toEqual({ available: '1000', held: '0' });
    await expectNothingStuck(t);
  });

  it('refuses such a replacement and leaves the order it would replace as it was', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    const resting = await placeOrder(server.url, t, { symbol: 'SOL-USDC', side: 'BUY', baseQty: '1', limitGtc: { price: '50' } });
    const r = await api(server.url, 'POST', '/v1/orders/replace', { orderId: resting.body.orderId, order: { symbol: 'SOL-USDC', side: 'BUY', baseQty: '1', limitIoc: { price: '100', maxQuoteDebit: '0.000001' } } }, t.auth);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    const open = await api(server.url, 'GET', '/v1/orders/open', undefined, t.auth);
    expect(open.body.orders.map((o: { orderId: string; status: string }) => [o.orderId, o.status])).toEqual([[resting.body.orderId, 'NEW']]);
    await api(server.url, 'POST', '/v1/orders/cancel', { orderId: resting.body.orderId }, t.auth);
    await expectNothingStuck(t);
  });
});

describe('numbers beyond what the database stores', () => {
  it.each([
    [{ limitGtc: { price: '10000000000' } }, 'order.limitGtc.price'],
    [{ baseQty: '10000000000000000' }, 'order.baseQty'],
    [{ limitGtc: { price: '100' }, attachedRisk: { trailingStop: { trailingDistanceTicks: '99999999999999999999', maxSlippageTicks: 5 } } }, 'order.attachedRisk.trailingStop.trailingDistanceTicks'],
  ])('refuses %j with 400 range on %s, and the next order still trades', async (change, fieldPath) => {
    const t = await trader(server.url, { SOL: '100', USDC: '1000' });
    const r = await placeOrder(server.url, t, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '100' }, ...change });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.violations[0]).toMatchObject({ fieldPath, ruleId: 'range' });
    const honest = await placeOrder(server.url, t, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '100' } });
    expect(honest.status).toBe(200);
    await api(server.url, 'POST', '/v1/orders/cancel', { orderId: honest.body.orderId }, t.auth);
    await expectNothingStuck(t);
  });

  it('refuses a modify to such a price, and an operator credit beyond 10^18 units', async () => {
    const t = await trader(server.url, { SOL: '100' });
    const o = await placeOrder(server.url, t, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '100' } });
    const m = await api(server.url, 'POST', '/v1/orders/modify', { orderId: o.body.orderId, newPrice: '10000000000' }, t.auth);
    expect(m.status).toBe(400);
    expect(m.body.violations[0]).toMatchObject({ fieldPath: 'newPrice', ruleId: 'range' });
    const credit = await api(server.url, 'POST', '/operator/v1/credits', { accountId: t.rootAccountId, asset: 'USDC', amount: '9'.repeat(60), ledgerAccount: 'TRADING' }, { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` });
    expect(credit.status).toBe(400);
    expect(credit.body.violations[0]).toMatchObject({ fieldPath: 'amount', ruleId: 'range' });
  });
});

describe('U+0000 in text', () => {
  it('is a 400 INVALID_CHARACTER over REST and GraphQL, not a 500', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    const requests: [string, string, unknown][] = [
      ['GET', '/v1/orders/%00', undefined],
      ['GET', '/v1/orders/by-client-order-id/%00', undefined],
      ['GET', '/v1/spot/trades?orderId=%00', undefined],
      ['POST', '/v1/orders/cancel', { orderId: '\u0000' }],
      ['POST', '/v1/orders/cancel-batch', { requestId: 'x\u0000', items: [{ orderId: 'a' }] }],
      ['POST', '/v1/orders/cancel-all-after', { requestId: 'x\u0000', timeoutSec: 0 }],
    ];
    for (const [method, path, body] of requests) {
      const r = await api(server.url, method, path, body, t.auth);
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.code).toBe('INVALID_CHARACTER');
    }
    const g = await gql(server.url, GetOrderDocument, { orderId: '\u0000' }, t.auth);
    expect(g.body.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_CHARACTER', status: 400 });
  });
});
