import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BalancesAsRestDocument, CreateTriggerAcceptedDocument, FilteredFillsDocument, FilteredTriggersDocument, OpenOrdersOfTriggerDocument } from '../generated/graphql/graphql.ts';
import { api } from '../helpers/auth.ts';
import { gql } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { gtc, ioc, placeOrder, printTrade, trader } from '../helpers/trading.ts';

/**
 * The read filters test/unit/graphql-parity.test.ts found missing over GraphQL (issue 28):
 * each one answers what the same filter answers over /v1, and changes the answer.
 */

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('GraphQL read filters at parity with /v1', () => {
  it('filters fills by side, time and match, and gives the page’s settlement legs as includeTransfers does', async () => {
    const maker = await trader(server.url, { BTC: '1' });
    const taker = await trader(server.url, { USDC: '100000' });
    expect((await placeOrder(server.url, maker, gtc('SELL', '0.01', '30000'))).status).toBe(200);
    expect((await placeOrder(server.url, taker, ioc('BUY', '0.01', '30000'))).status).toBe(200);

    const rest = await api(server.url, 'GET', '/v1/spot/trades?includeTransfers=true', undefined, taker.auth);
    expect(rest.status).toBe(200);
    const [trade] = rest.body.trades as { matchId: string; side: string; executedAtTsNs?: string }[];
    expect(trade).toMatchObject({ side: 'BUY' });

    const fills = async (vars: Record<string, unknown>) => {
      const r = await gql(server.url, FilteredFillsDocument, { withLegs: false, ...vars }, taker.auth);
      expect(r.body.errors).toBeUndefined();
      return r.body.data!.viewer.fills;
    };
    expect((await fills({ side: 'BUY' })).edges.map((e) => String(e.node.matchId))).toEqual([trade!.matchId]);
    expect((await fills({ side: 'SELL' })).edges).toEqual([]);
    expect((await fills({ endTime: '1' })).edges).toEqual([]);
    expect((await fills({ startTime: '1' })).edges).toHaveLength(1);
    expect((await fills({ symbol: 'BTC-USDC', afterMatchId: trade!.matchId })).edges).toEqual([]);

    // The referrer's part of each fee, as /v1 lists it with the trade.
    expect((await fills({})).edges.map((e) => e.node.referralShare)).toEqual(rest.body.trades.map((x: { referralShare: string }) => x.referralShare));

    // Field for field what /v1 lists beside the trades.
    const withLegs = await fills({ withLegs: true });
    expect(withLegs.transfers!.length).toBeGreaterThan(0);
    expect(withLegs.transfers!.map((l) => ({ ...l, matchId: String(l.matchId), timestamp: String(l.timestamp) }))).toEqual(rest.body.transfers);

    // A filter's own rule (afterMatchId needs symbol) is the service's, so both transports refuse alike.
    const alone = await gql(server.url, FilteredFillsDocument, { withLegs: false, afterMatchId: '1' }, taker.auth);
    expect(alone.body.errors?.[0]?.extensions).toMatchObject({ key: 'invalid-argument', violations: [expect.objectContaining({ fieldPath: 'afterMatchId', ruleId: 'requires' })] });
  });

  it('lists open orders of one trigger, and triggers by parent order and pair, as /v1 does', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const parent = await placeOrder(server.url, t, gtc('BUY', '0.01', '1000', { attachedRisk: { stopLoss: { triggerPrice: '900', child: { marketIoc: {} } } } }));
    expect(parent.status).toBe(200);
    await placeOrder(server.url, t, gtc('BUY', '0.01', '1001'));

    const open = async (triggerId?: string) => (await gql(server.url, OpenOrdersOfTriggerDocument, { triggerId }, t.auth)).body.data!.viewer.openOrders.edges;
    expect(await open()).toHaveLength(2);
    // No trigger of the account placed them: /v1 answers none, and so does GraphQL.
    const restOfTrigger = await api(server.url, 'GET', `/v1/orders/open?triggerId=${parent.body.stopLossTriggerId}`, undefined, t.auth);
    expect(restOfTrigger.body.orders).toEqual([]);
    expect(await open(parent.body.stopLossTriggerId)).toEqual([]);

    const triggers = async (vars: { parentOrderId?: string; symbolId?: number }) =>
      (await gql(server.url, FilteredTriggersDocument, vars, t.auth)).body.data!.triggers.triggers.map((x) => x.triggerId);
    const restLegs = await api(server.url, 'GET', `/v1/triggers?parentOrderId=${parent.body.orderId}`, undefined, t.auth);
    expect(restLegs.body.triggers.map((x: { triggerId: string }) => x.triggerId)).toEqual([parent.body.stopLossTriggerId]);
    expect(await triggers({ parentOrderId: parent.body.orderId })).toEqual([parent.body.stopLossTriggerId]);
    expect(await triggers({ parentOrderId: 'no-such-order' })).toEqual([]);
    const btc = (await api(server.url, 'GET', '/v1/spot/config')).body.markets.find((m: { symbol: string }) => m.symbol === 'BTC-USDC');
    const eth = (await api(server.url, 'GET', '/v1/spot/config')).body.markets.find((m: { symbol: string }) => m.symbol === 'ETH-USDC');
    expect(await triggers({ symbolId: btc.symbolId })).toEqual([parent.body.stopLossTriggerId]);
    expect(await triggers({ symbolId: eth.symbolId })).toEqual([]);
  });

  it('answers createTrigger with what POST /v1/triggers answers: its ids and when it was accepted', async () => {
    await printTrade(server.url, '30000');
    const t = await trader(server.url, { BTC: '1' });
    const created = await gql(server.url, CreateTriggerAcceptedDocument, { trigger: { symbol: 'BTC-USDC', qty: '0.1', clientTriggerId: 'accepted-1', stopLoss: { side: 'SELL', triggerPrice: '29000', child: { marketIoc: {} } } } }, t.auth);
    expect(created.body.errors).toBeUndefined();
    const answer = created.body.data!.createTrigger;
    const rest = await api(server.url, 'GET', `/v1/triggers/${answer.triggerId}`, undefined, t.auth);
    expect(rest.status).toBe(200);
    expect(answer).toEqual({ triggerId: rest.body.trigger.triggerId, clientTriggerId: 'accepted-1', acceptedAt: rest.body.trigger.createdAt, acceptedAtTsNs: rest.body.trigger.acceptedAtTsNs });
    expect(answer.acceptedAtTsNs).toMatch(/^[1-9][0-9]+$/);
  });

  it('answers a trigger write with the relations its selection asks for, read after the write', async () => {
    await printTrade(server.url, '30000');
    const t = await trader(server.url, { BTC: '1' });
    const send = async (query: string) => {
      const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...t.auth }, body: JSON.stringify({ query }) });
      return (await res.json()) as { data?: any; errors?: unknown };
    };
    const selection = '{ triggerId status subaccountId parentOrderId events { eventType childOrderId } childOrders { orderId } }';
    const created = await send(`mutation { createTrigger(trigger: { symbol: "BTC-USDC", qty: "0.1", stopLoss: { side: SELL, triggerPrice: "29000", child: { marketIoc: {} } } }) ${selection} }`);
    expect(created.errors).toBeUndefined();
    expect(created.data.createTrigger).toMatchObject({ status: 'ARMED', subaccountId: t.rootAccountId, parentOrderId: '', childOrders: [] });
    expect(created.data.createTrigger.events.map((e: { eventType: string }) => e.eventType)).toEqual(['ARMED', 'CREATED']);
    const canceled = await send(`mutation { cancelTrigger(triggerId: "${created.data.createTrigger.triggerId}") ${selection} }`);
    expect(canceled.errors).toBeUndefined();
    expect(canceled.data.cancelTrigger).toMatchObject({ status: 'CANCELED', subaccountId: t.rootAccountId, childOrders: [] });
    expect(canceled.data.cancelTrigger.events.map((e: { eventType: string }) => e.eventType)).toEqual(['CANCELED', 'ARMED', 'CREATED']);
  });

  it('lists balances with every field GET /v1/balances gives them', async () => {
    const t = await trader(server.url, { USDC: '12.5' });
    const rest = await api(server.url, 'GET', '/v1/balances', undefined, t.auth);
    expect(rest.body.balances).toEqual([{ ledgerAccount: 'TRADING', asset: 'USDC', assetId: expect.any(String), available: '12.5', held: '0', total: '12.5' }]);
    const viaGql = await gql(server.url, BalancesAsRestDocument, {}, t.auth);
    expect(viaGql.body.data?.viewer.balances).toEqual(rest.body.balances);
  });
});
