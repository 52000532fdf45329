import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, placeOrder, trader } from '../helpers/trading.ts';

/**
 * An order's `origin` names the trigger that placed it and, for an attached-risk leg's
 * child, the order the leg protects (issue 25); GraphQL's Order shows the same origin and
 * the attached-risk legs /v1/orders/open shows.
 */

const gtc = (side: 'BUY' | 'SELL', qty: string, price: string, extra: Record<string, unknown> = {}) => ({
  symbol: 'BTC-USDC',
  side,
  baseQty: qty,
  limitGtc: { price },
  ...extra,
});
const ioc = (side: 'BUY' | 'SELL', qty: string, price: string) => ({
  symbol: 'BTC-USDC',
  side,
  baseQty: qty,
  limitIoc: { price },
});

async function printTrade(url: string, price: string) {
  const maker = await trader(url, { BTC: '1' });
  const taker = await trader(url, { USDC: '100000' });
  expect((await placeOrder(url, maker, gtc('SELL', '0.01', price))).status).toBe(200);
  expect((await placeOrder(url, taker, ioc('BUY', '0.01', price))).status).toBe(200);
}

async function graphql(url: string, who: SignedIn, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...who.auth,
    },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as {
    data?: Record<string, any>;
    errors?: { extensions?: { code?: string } }[];
  };
}

const ORIGIN = 'origin { scope triggerId triggerType parentOrderId childSeq }';
const RISK =
  'attachedRisk { oco stopLoss { policy { triggerPrice child { kind limitPrice postOnly } } state { status triggerId childOrderId armedAt terminalAt } } takeProfit { policy { triggerPrice child { kind limitPrice } } state { status triggerId childOrderId } } trailingStop { state { triggerId } } }';

async function firedChild(url: string, who: SignedIn, triggerId: string): Promise<string> {
  const events = (await api(url, 'GET', `/v1/triggers/${triggerId}/events?eventType=FIRED`, undefined, who.auth)).body.events;
  expect(events).toHaveLength(1);
  expect(events[0].childOrderId).not.toBe('');
  return events[0].childOrderId;
}

describe('order origin', () => {
  let server: RunningApp;
  let standalone: SignedIn;
  let attached: SignedIn;
  let stopId: string;
  let parentId: string;
  let legId: string;
  let standaloneChild: string;
  let legChild: string;

  beforeAll(async () => {
    server = await startTestApp();
    await printTrade(server.url, '30000');
    standalone = await trader(server.url, { BTC: '1' });
    attached = await trader(server.url, { USDC: '100000' });
    // A stop whose limit child rests above the market once it fires.
    const stop = await api(
      server.url,
      'POST',
      '/v1/triggers',
      {
        trigger: {
          symbol: 'BTC-USDC',
          qty: '0.1',
          stopLoss: {
            side: 'SELL',
            triggerPrice: '29000',
            child: { limit: { price: '29500' } },
          },
        },
      },
      standalone.auth,
    );
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    stopId = stop.body.triggerId;
    const parent = await placeOrder(
      server.url,
      attached,
      gtc('BUY', '0.1', '29000', {
        attachedRisk: {
          stopLoss: {
            triggerPrice: '28000',
            child: { limit: { price: '28800' } },
          },
        },
      }),
    );
    expect(parent.status, JSON.stringify(parent.body)).toBe(200);
    parentId = parent.body.orderId;
    legId = parent.body.stopLossTriggerId;
    // Fills the parent (arming its leg) and prints 29000 (firing the standalone stop).
    const seller = await trader(server.url, { BTC: '1' });
    expect((await placeOrder(server.url, seller, ioc('SELL', '0.1', '29000'))).status).toBe(200);
    standaloneChild = await firedChild(server.url, standalone, stopId);
    await printTrade(server.url, '28000');
    legChild = await firedChild(server.url, attached, legId);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('names the trigger of a fired stop-loss’s child, with no parent order (/v1 order and open orders)', async () => {
    const want = {
      scope: 'TRIGGER',
      triggerId: stopId,
      triggerType: 'STOP_LOSS',
      parentOrderId: '',
      childSeq: 1,
    };
    const one = await api(server.url, 'GET', `/v1/orders/${standaloneChild}`, undefined, standalone.auth);
    expect(one.body.order).toMatchObject({
      status: 'NEW',
      price: '29500',
      origin: want,
    });
    const open = (await api(server.url, 'GET', '/v1/orders/open', undefined, standalone.auth)).body.orders;
    expect(open.map((o: { orderId: string; origin: unknown }) => [o.orderId, o.origin])).toEqual([[standaloneChild, want]]);
  });

  it('names the leg’s trigger and the protected order for an attached leg’s child (/v1 order and open orders)', async () => {
    const want = {
      scope: 'TRIGGER',
      triggerId: legId,
      triggerType: 'STOP_LOSS',
      parentOrderId: parentId,
      childSeq: 1,
    };
    expect((await api(server.url, 'GET', `/v1/orders/${legChild}`, undefined, attached.auth)).body.order).toMatchObject({ status: 'NEW', price: '28800', origin: want });
    const open = (await api(server.url, 'GET', '/v1/orders/open?includeAttachedRisk=true', undefined, attached.auth)).body.orders;
    expect(open.map((o: { orderId: string; origin: unknown }) => [o.orderId, o.origin])).toEqual([[legChild, want]]);
    // An order placed directly names nothing.
    expect((await api(server.url, 'GET', `/v1/orders/${parentId}`, undefined, attached.auth)).body.order.origin).toEqual({
      scope: 'DIRECT',
      triggerId: '',
      triggerType: 'TRIGGER_TYPE_UNSPECIFIED',
      parentOrderId: '',
      childSeq: 0,
    });
  });

  it('shows the same origin on GraphQL’s order and openOrders', async () => {
    for (const [who, child] of [
      [standalone, standaloneChild],
      [attached, legChild],
    ] as const) {
      const rest = (await api(server.url, 'GET', `/v1/orders/${child}`, undefined, who.auth)).body.order.origin;
      const r = await graphql(server.url, who, `query($id: String!) { order(orderId: $id) { ${ORIGIN} } viewer { openOrders(first: 10) { edges { node { orderId ${ORIGIN} } } } } }`, { id: child });
      expect(r.errors).toBeUndefined();
      expect(r.data?.order.origin).toEqual(rest);
      expect(r.data?.viewer.openOrders.edges).toEqual([{ node: { orderId: child, origin: rest } }]);
    }
  });

  it('shows an order’s attached-risk legs on GraphQL as /v1/orders/open does, for open and filled orders alike', async () => {
    const bracket = {
      oco: true,
      stopLoss: { triggerPrice: '26000', child: { marketIoc: {} } },
      takeProfit: {
        triggerPrice: '33000',
        child: { limit: { price: '33100', postOnly: true } },
      },
    };
    const resting = await placeOrder(server.url, attached, gtc('BUY', '0.05', '27000', { attachedRisk: bracket }));
    expect(resting.status, JSON.stringify(resting.body)).toBe(200);
    const rest = (await api(server.url, 'GET', '/v1/orders/open?includeAttachedRisk=true&includeAttachedRiskState=true', undefined, attached.auth)).body.orders;
    const restRisk = rest.find((o: { orderId: string }) => o.orderId === resting.body.orderId).attachedRisk;
    expect(restRisk.stopLoss.state).toMatchObject({
      status: 'PENDING',
      triggerId: resting.body.stopLossTriggerId,
    });
    expect(restRisk.takeProfit.state).toMatchObject({
      status: 'PENDING',
      triggerId: resting.body.takeProfitTriggerId,
    });

    const listed = await graphql(server.url, attached, `{ viewer { openOrders(first: 10) { edges { node { orderId ${RISK} } } } } }`);
    expect(listed.errors).toBeUndefined();
    const byId = new Map(listed.data?.viewer.openOrders.edges.map((e: { node: { orderId: string } }) => [e.node.orderId, e.node]));
    expect(byId.get(legChild)).toEqual({
      orderId: legChild,
      attachedRisk: null,
    });
    expect(byId.get(resting.body.orderId)).toEqual({
      orderId: resting.body.orderId,
      attachedRisk: {
        oco: true,
        stopLoss: {
          policy: {
            triggerPrice: '26000',
            child: { kind: 'MARKET_IOC', limitPrice: null, postOnly: false },
          },
          state: restRisk.stopLoss.state,
        },
        takeProfit: {
          policy: {
            triggerPrice: '33000',
            child: { kind: 'LIMIT', limitPrice: '33100' },
          },
          state: {
            status: 'PENDING',
            triggerId: resting.body.takeProfitTriggerId,
            childOrderId: '',
          },
        },
        trailingStop: null,
      },
    });

    // A filled parent's leg, fired: the child it placed, read through a fragment.
    const filled = await graphql(server.url, attached, `query($id: String!) { order(orderId: $id) { status ...Risk } } fragment Risk on Order { ${RISK} }`, { id: parentId });
    expect(filled.errors).toBeUndefined();
    expect(filled.data?.order.status).toBe('FILLED');
    expect(filled.data?.order.attachedRisk.stopLoss).toMatchObject({
      policy: {
        triggerPrice: '28000',
        child: { kind: 'LIMIT', limitPrice: '28800', postOnly: false },
      },
      state: { triggerId: legId, childOrderId: legChild },
    });
    expect(filled.data?.order.attachedRisk.stopLoss.state.armedAt).not.toBe('0');
  });

  it('shows another account nothing: its orders stay not found with attachedRisk or origin selected', async () => {
    const r = await graphql(server.url, standalone, `query($id: String!) { order(orderId: $id) { ${ORIGIN} ${RISK} } }`, { id: parentId });
    expect(r.errors?.[0]?.extensions?.code).toBe('ORDER_NOT_FOUND');
    expect((await api(server.url, 'GET', `/v1/orders/${legChild}`, undefined, standalone.auth)).status).toBe(404);
  });

  it('keeps the origin in a modify’s answer, on /v1 and GraphQL', async () => {
    const want = { scope: 'TRIGGER', triggerId: stopId, triggerType: 'STOP_LOSS', parentOrderId: '', childSeq: 1 };
    const rest = await api(server.url, 'POST', '/v1/orders/modify', { orderId: standaloneChild, newPrice: '29600' }, standalone.auth);
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(rest.body.order).toMatchObject({ price: '29600', origin: want });
    const g = await graphql(server.url, standalone, `mutation($id: String!) { modifyOrder(orderId: $id, newPrice: "29700") { price ${ORIGIN} } }`, { id: standaloneChild });
    expect(g.errors).toBeUndefined();
    expect(g.data?.modifyOrder).toEqual({ price: '29700', origin: want });
  });
});

describe('oco over any exits', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startTestApp();
  });
  afterAll(async () => {
    await server?.close();
  });

  const trigger = async (who: SignedIn, id: string) => (await api(server.url, 'GET', `/v1/triggers/${id}`, undefined, who.auth)).body.trigger;
  const trailing = { trailingDistanceBps: 100, maxSlippageBps: 500 };
  const market = { marketIoc: {} };

  it('takes a take-profit with a trailing stop, and the leg that fires cancels the other (/v1)', async () => {
    await printTrade(server.url, '30000');
    const seller = await trader(server.url, { BTC: '1' });
    expect((await placeOrder(server.url, seller, gtc('SELL', '0.1', '30000'))).status).toBe(200);
    const owner = await trader(server.url, { USDC: '100000' });
    const parent = await placeOrder(server.url, owner, gtc('BUY', '0.1', '30000', { attachedRisk: { oco: true, takeProfit: { triggerPrice: '31000', child: market }, trailingStop: trailing } }));
    expect(parent.status, JSON.stringify(parent.body)).toBe(200);
    const { takeProfitTriggerId: tp, trailingStopTriggerId: ts } = parent.body;
    expect(await trigger(owner, tp)).toMatchObject({ status: 'ARMED', qty: '0.1' });
    expect(await trigger(owner, ts)).toMatchObject({ status: 'ARMED', qty: '0.1' });
    expect((await balancesOf(server.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.1' });

    // 29600 is 1.3% under the peak: the trailing stop fires, its child sells into the bid.
    const bidder = await trader(server.url, { USDC: '100000' });
    const bid = await placeOrder(server.url, bidder, gtc('BUY', '0.2', '29600'));
    expect((await placeOrder(server.url, seller, ioc('SELL', '0.01', '29600'))).status).toBe(200);
    expect(await trigger(owner, ts)).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.1', held: '0' } });
    expect(await trigger(owner, tp)).toMatchObject({ status: 'CANCELED', cancelReason: 'OCO_SIBLING_FIRED', state: { held: '0' } });
    expect((await api(server.url, 'POST', '/v1/orders/cancel', { orderId: bid.body.orderId }, bidder.auth)).status).toBe(200);
  });

  it('takes all three exits as one group: the take-profit firing cancels the stop-loss and the trailing stop (/v1)', async () => {
    const seller = await trader(server.url, { BTC: '1' });
    const owner = await trader(server.url, { USDC: '100000' });
    const risk = { oco: true, stopLoss: { triggerPrice: '29000', child: market }, takeProfit: { triggerPrice: '30500', child: market }, trailingStop: trailing };
    const parent = await placeOrder(server.url, owner, gtc('BUY', '0.1', '29600', { attachedRisk: risk }));
    expect(parent.status, JSON.stringify(parent.body)).toBe(200);
    const { stopLossTriggerId: sl, takeProfitTriggerId: tp, trailingStopTriggerId: ts } = parent.body;
    const listed = (await api(server.url, 'GET', '/v1/orders/open?includeAttachedRisk=true&includeAttachedRiskState=true', undefined, owner.auth)).body.orders;
    expect(listed[0].attachedRisk).toMatchObject({ oco: true, stopLoss: { state: { triggerId: sl } }, takeProfit: { state: { triggerId: tp } }, trailingStop: { state: { triggerId: ts } } });
    expect((await placeOrder(server.url, seller, ioc('SELL', '0.1', '29600'))).status).toBe(200);
    for (const id of [sl, tp, ts]) expect(await trigger(owner, id)).toMatchObject({ status: 'ARMED', qty: '0.1' });
    // One position, one hold across the three legs.
    expect((await balancesOf(server.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.1' });

    const bidder = await trader(server.url, { USDC: '100000' });
    expect((await placeOrder(server.url, bidder, gtc('BUY', '0.2', '30500'))).status).toBe(200);
    expect((await placeOrder(server.url, seller, ioc('SELL', '0.01', '30500'))).status).toBe(200);
    expect(await trigger(owner, tp)).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.1' } });
    for (const id of [sl, ts]) expect(await trigger(owner, id)).toMatchObject({ status: 'CANCELED', cancelReason: 'OCO_SIBLING_FIRED', state: { held: '0' } });
    expect((await balancesOf(server.url, owner))['TRADING:BTC']).toBeUndefined();
  });

  it('refuses oco with a single exit, on /v1 and GraphQL, naming the field', async () => {
    const owner = await trader(server.url, { USDC: '100000' });
    for (const risk of [{ oco: true, trailingStop: trailing }, { oco: true, takeProfit: { triggerPrice: '40000', child: market } }, { oco: true }]) {
      const r = await placeOrder(server.url, owner, gtc('BUY', '0.1', '20000', { attachedRisk: risk }));
      expect(r.status, JSON.stringify(risk)).toBe(400);
      expect(r.body.violations[0]).toMatchObject({ fieldPath: 'order.attachedRisk.oco', ruleId: 'oco-pair' });
    }
    const g = await graphql(server.url, owner, `mutation($input: CreateOrderInput!) { createOrder(input: $input) { orderId } }`, {
      input: gtc('BUY', '0.1', '20000', { attachedRisk: { oco: true, trailingStop: trailing } }),
    });
    expect(g.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', violations: [{ fieldPath: 'order.attachedRisk.oco', ruleId: 'oco-pair' }] });
    expect((await api(server.url, 'GET', '/v1/orders/open', undefined, owner.auth)).body.orders).toEqual([]);
  });
});
