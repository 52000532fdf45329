import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateOrderDocument, LayoutTemplatesDocument, ModifyOrderDocument, PublishLayoutDocument } from '../generated/graphql/graphql.ts';
import { MAX_TEMPLATES_PER_ACCOUNT, MAX_VERSIONS_PER_TEMPLATE } from '../../src/services/layouts/index.ts';
import { MAX_OPEN_ORDERS_PER_ACCOUNT } from '../../src/services/trading/engine.ts';
import { api, liftLimits, newKeyPair, onboard, signed, signIn, type SignedIn } from '../helpers/auth.ts';
import { gql } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { placeOrder, trader } from '../helpers/trading.ts';

/**
 * Issue 23, growth caps (docs/scaling.md "Growth caps"): each is crossed here, on REST and
 * GraphQL, and answered with the spec's error form.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

const PUBLISHED = '/v1/layouts/published';

function expectViolation(r: { status: number; body: any }, code: string, fieldPath: string, ruleId: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body).toMatchObject({ status: 400, code, violations: [{ fieldPath, ruleId }] });
}

async function user(): Promise<SignedIn> {
  const who = await signIn(server.url);
  await liftLimits(server.url, who.rootAccountId, ['ACCOUNT_ADMIN']);
  return who;
}

async function saveLayout(who: SignedIn): Promise<string> {
  const r = await api(server.url, 'POST', '/v1/layouts', { layout: { layoutId: '0', name: 'desk' } }, who.auth);
  if (r.status !== 200) throw new Error(`layout: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.layout.layoutId as string;
}

const publish = (who: SignedIn, layoutId: string) => api(server.url, 'POST', PUBLISHED, { layoutId, title: 'Scalper', tags: [], isListed: true }, who.auth);

describe('layout template caps', () => {
  it(`a template keeps at most ${MAX_VERSIONS_PER_TEMPLATE} versions: the next publish is 400 max-versions on both transports, and stores nothing`, async () => {
    const me = await user();
    const layoutId = await saveLayout(me);
    for (let i = 1; i <= MAX_VERSIONS_PER_TEMPLATE; i++) expect((await publish(me, layoutId)).body.version).toBe(i);
    expectViolation(await publish(me, layoutId), 'BAD_REQUEST', 'layoutId', 'max-versions');
    const viaGraphql = await gql(server.url, PublishLayoutDocument, { input: { layoutId, title: 'again', isListed: true } }, me.auth);
    expect(viaGraphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', violations: [{ fieldPath: 'layoutId', ruleId: 'max-versions' }] });
    const mine = await api(server.url, 'GET', `${PUBLISHED}?ownerId=${me.rootAccountId}`, undefined, me.auth);
    expect(mine.body.templates.map((t: any) => t.latestVersion)).toEqual([MAX_VERSIONS_PER_TEMPLATE]);
  }, 120_000);

  it(`an account publishes at most ${MAX_TEMPLATES_PER_ACCOUNT} templates; republishing one of them still works`, async () => {
    const me = await user();
    const layouts: string[] = [];
    for (let i = 0; i < MAX_TEMPLATES_PER_ACCOUNT; i++) {
      layouts.push(await saveLayout(me));
      expect((await publish(me, layouts[i] as string)).status).toBe(200);
    }
    expectViolation(await publish(me, await saveLayout(me)), 'BAD_REQUEST', 'layoutId', 'max-templates');
    expect((await publish(me, layouts[0] as string)).body.version).toBe(2);
  }, 120_000);

  it('publishing needs a credential that may write: a read-only key gets 403 MISSING_PERMISSION, a trading key publishes', async () => {
    const owner = await onboard(server.url);
    await liftLimits(server.url, owner.rootAccountId, ['ACCOUNT_ADMIN', 'ACCOUNT_SECURITY']);
    const layoutId = await saveLayout(owner);
    const keyWith = async (permissions: string[]) => {
      const policy = await api(server.url, 'POST', '/v1/auth/api-policies', { name: permissions.join('-'), permissions }, owner.auth);
      const pair = newKeyPair();
      const r = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId }, owner.auth);
      return { keyId: r.body.apiKey.keyId as string, ...pair };
    };
    const reader = await keyWith(['READ']);
    const body = { layoutId, title: 'Public', tags: [], isListed: true };
    const refused = await signed(server.url, reader, 'POST', PUBLISHED, body);
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body).toMatchObject({ code: 'MISSING_PERMISSION' });
    // The read-only key still reads and keeps layouts.
    expect((await signed(server.url, reader, 'GET', '/v1/layouts')).status).toBe(200);
    const listed = await api(server.url, 'GET', `${PUBLISHED}?ownerId=${owner.rootAccountId}`, undefined, owner.auth);
    expect(listed.body.templates).toEqual([]);
    const trading = await keyWith(['READ', 'TRADE']);
    expect((await signed(server.url, trading, 'POST', PUBLISHED, body)).status).toBe(200);
  });

  it('discovery is metered: the ACCOUNT_ADMIN pool runs out and answers 429 naming layout.search, on both transports', async () => {
    const me = await signIn(server.url);
    let refused: { status: number; body: any } | undefined;
    for (let i = 0; i < 80 && !refused; i++) {
      const r = await api(server.url, 'GET', `${PUBLISHED}?query=anything`, undefined, me.auth);
      if (r.status !== 200) refused = r;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', rate_limit: { policy_class: 'ACCOUNT_ADMIN', operation_id: 'layout.search' } });
    // The pool refills while the test runs, so a loaded machine can earn a token back between
    // the two transports: GraphQL is asked until it too finds the shared pool empty.
    let graphqlRefusal: unknown;
    for (let i = 0; i < 80 && !graphqlRefusal; i++) {
      const viaGraphql = await gql(server.url, LayoutTemplatesDocument, { query: 'anything' }, me.auth);
      graphqlRefusal = viaGraphql.body.errors?.[0]?.extensions;
    }
    expect(graphqlRefusal).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
  });
});

describe('order caps', () => {
  it(`an account keeps at most ${MAX_OPEN_ORDERS_PER_ACCOUNT} open orders: the next resting order is 400 TOO_MANY_OPEN_ORDERS on both transports; a replace or an IOC still works`, async () => {
    const me = await trader(server.url, { SOL: '100000' });
    const ids: string[] = [];
    // Batches of 20: the test signs and the app verifies in one process, and 50 at once could
    // hold its event loop past the Redis charge's 250 ms timeout on a loaded machine (a 503).
    for (let i = 0; i < MAX_OPEN_ORDERS_PER_ACCOUNT; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, MAX_OPEN_ORDERS_PER_ACCOUNT - i) }, (_, j) => placeOrder(server.url, me, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '0.1', limitGtc: { price: String(500 + i + j) } })),
      );
      for (const r of batch) {
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        ids.push(r.body.orderId);
      }
    }
    const over = await placeOrder(server.url, me, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '0.1', limitGtc: { price: '3000' } });
    expectViolation(over, 'TOO_MANY_OPEN_ORDERS', 'order', 'max-open-orders');
    const viaGraphql = await gql(server.url, CreateOrderDocument, { input: { symbol: 'SOL-USDC', side: 'SELL', baseQty: '0.1', limitGtd: { price: '3000', expireAt: new Date(Date.now() + 3_600_000).toISOString() } } }, me.auth);
    expect(viaGraphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'TOO_MANY_OPEN_ORDERS', violations: [{ fieldPath: 'order', ruleId: 'max-open-orders' }] });
    // A replacement takes its predecessor's place; an IOC never rests.
    const replaced = await api(server.url, 'POST', '/v1/orders/replace', { orderId: ids[0], order: { symbol: 'SOL-USDC', side: 'SELL', baseQty: '0.2', limitGtc: { price: '4000' } } }, me.auth);
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    const ioc = await placeOrder(server.url, me, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '0.1', limitIoc: { price: '5000' } });
    expect(ioc.status, JSON.stringify(ioc.body)).toBe(200);
    const open = await api(server.url, 'GET', '/v1/orders/open?limit=1000', undefined, me.auth);
    expect(open.body.orders).toHaveLength(MAX_OPEN_ORDERS_PER_ACCOUNT);
  }, 180_000);

  it('modify and replace keep the market minimum quantity and value, as placement does, on both transports', async () => {
    const maker = await trader(server.url, { ETH: '10' });
    const taker = await trader(server.url, { USDC: '100000' });
    const order = async (price: string) => (await placeOrder(server.url, maker, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '1', limitGtc: { price } })).body.orderId as string;
    const modify = (body: Record<string, unknown>) => api(server.url, 'POST', '/v1/orders/modify', body, maker.auth);

    const resting = await order('2000');
    // ETH-USDC: minimum 0.0001 ETH and 1 USDC.
    expectViolation(await modify({ orderId: resting, newQty: '0.00005' }), 'BAD_REQUEST', 'newQty', 'min-qty');
    expectViolation(await modify({ orderId: resting, newQty: '0.0001' }), 'BAD_REQUEST', 'newQty', 'min-notional');
    const lowPrice = await gql(server.url, ModifyOrderDocument, { orderId: resting, newQty: '0.001', newPrice: '500' }, maker.auth);
    expect(lowPrice.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', violations: [{ fieldPath: 'newQty', ruleId: 'min-notional' }] });
    expect((await modify({ orderId: resting, newQty: '0.5' })).status).toBe(200);

    // A lineage filled but for 0.0001: a replacement working 0.00005 more is below the minimum.
    const partly = await order('1990');
    const fill = await placeOrder(server.url, taker, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '0.9999', limitIoc: { price: '1990' } });
    expect(fill.status, JSON.stringify(fill.body)).toBe(200);
    const replace = (baseQty: string) => api(server.url, 'POST', '/v1/orders/replace', { orderId: partly, order: { symbol: 'ETH-USDC', side: 'SELL', baseQty, limitGtc: { price: '1990' } } }, maker.auth);
    expectViolation(await replace('0.99995'), 'BAD_REQUEST', 'order.baseQty', 'min-qty');
    expect((await replace('1.5')).status).toBe(200);
  }, 60_000);
});
