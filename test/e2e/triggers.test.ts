import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelTriggerDocument, CreateTriggerDocument, TriggerEventsDocument, TriggerEventUpdatesDocument, TriggersDocument } from '../generated/graphql/graphql.ts';
import { api, newKeyPair, signed, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { collect, gql, wsClient } from '../helpers/graphql.ts';
import { startTestApp, testDatabase, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, placeOrder, projected, trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

const gtc = (side: 'BUY' | 'SELL', qty: string, price: string) => ({ symbol: 'BTC-USDC', side, baseQty: qty, limitGtc: { price } });
const stopLoss = (triggerPrice: string, extra: Record<string, unknown> = {}) => ({
  trigger: { symbol: 'BTC-USDC', qty: '0.1', stopLoss: { side: 'SELL', triggerPrice, child: { marketIoc: { maxSlippageBps: 500 } } }, ...extra },
});

/** Prints a trade at `price` between two fresh accounts: the last price triggers watch. */
async function printTrade(url: string, price: string) {
  const maker = await trader(url, { BTC: '1' });
  const taker = await trader(url, { USDC: '100000' });
  expect((await placeOrder(url, maker, gtc('SELL', '0.01', price))).status).toBe(200);
  expect((await placeOrder(url, taker, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitIoc: { price } })).status).toBe(200);
}

describe('stop-loss and take-profit triggers', () => {
  let owner: SignedIn;

  it('accepts a funded stop-loss, holds its base, refuses one that would fire at once, and answers a repeated clientTriggerId', async () => {
    await printTrade(server.url, '30000');
    owner = await trader(server.url, { BTC: '1' });
    const created = await api(server.url, 'POST', '/v1/triggers', stopLoss('29000', { clientTriggerId: 'sl-1' }), owner.auth);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ clientTriggerId: 'sl-1', acceptedAtTsNs: expect.stringMatching(/^\d+$/) });
    expect((await balancesOf(server.url, owner))['TRADING:BTC']).toEqual({ available: '0.9', held: '0.1' });

    const got = await api(server.url, 'GET', `/v1/triggers/${created.body.triggerId}`, undefined, owner.auth);
    expect(got.body.trigger).toMatchObject({
      triggerId: created.body.triggerId,
      status: 'ARMED',
      triggerType: 'STOP_LOSS',
      qty: '0.1',
      stop: { triggerDirection: 'BELOW', triggerPrice: '29000', triggerPriceSource: 'LAST_PRICE' },
      stopLoss: { side: 'SELL', triggerPrice: '29000', child: { marketIoc: { maxSlippageBps: 500 } } },
    });

    const again = await api(server.url, 'POST', '/v1/triggers', stopLoss('29000', { clientTriggerId: 'sl-1' }), owner.auth);
    expect(again.body.triggerId, JSON.stringify(again.body)).toBe(created.body.triggerId);
    const other = await api(server.url, 'POST', '/v1/triggers', stopLoss('28000', { clientTriggerId: 'sl-1' }), owner.auth);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('CONFLICT_CLIENT_TRIGGER_ID_REUSED');

    const atOnce = await api(server.url, 'POST', '/v1/triggers', stopLoss('31000'), owner.auth);
    expect(atOnce.status).toBe(400);
    expect(atOnce.body.code).toBe('TRIGGER_WOULD_FIRE_IMMEDIATELY');
    const unfunded = await api(server.url, 'POST', '/v1/triggers', { trigger: { ...stopLoss('29000').trigger, qty: '5' } }, owner.auth);
    expect(unfunded.status).toBe(400);
    expect((await balancesOf(server.url, owner))['TRADING:BTC']).toEqual({ available: '0.9', held: '0.1' });

    const none = await api(server.url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.1' } }, owner.auth);
    expect(none.status).toBe(400);
    const two = await api(server.url, 'POST', '/v1/triggers', { trigger: { ...stopLoss('29000').trigger, takeProfit: { side: 'SELL', triggerPrice: '35000', child: { marketIoc: {} } } } }, owner.auth);
    expect(two.status).toBe(400);

    const stranger = await trader(server.url, {});
    expect((await api(server.url, 'GET', `/v1/triggers/${created.body.triggerId}`, undefined, stranger.auth)).status).toBe(404);
    expect((await api(server.url, 'POST', '/v1/triggers/cancel', { triggerId: created.body.triggerId }, stranger.auth)).status).toBe(404);
  });

  it('fires once when a trade prints through it, places its market child in the same commit, and records every step', async () => {
    const [listed] = (await api(server.url, 'GET', '/v1/triggers?status=ARMED', undefined, owner.auth)).body.triggers;
    const bidder = await trader(server.url, { USDC: '100000' });
    expect((await placeOrder(server.url, bidder, gtc('BUY', '0.3', '28900'))).status).toBe(200);
    // A trade at 28900 is at or below 29000: the stop fires and its child sells into the bid.
    const seller = await trader(server.url, { BTC: '1' });
    expect((await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', limitIoc: { price: '28900' } })).status).toBe(200);

    const fired = (await api(server.url, 'GET', `/v1/triggers/${listed.triggerId}`, undefined, owner.auth)).body.trigger;
    expect(fired).toMatchObject({ status: 'COMPLETED', state: { firePx: '28900', cumFilledQty: '0.1', childOrders: 1, held: '0' } });
    expect(fired.completedAt).not.toBe('');
    const events = (await api(server.url, 'GET', `/v1/triggers/${listed.triggerId}/events`, undefined, owner.auth)).body.events;
    expect(events.map((e: { eventType: string }) => e.eventType)).toEqual(['COMPLETED', 'CHILD_FILLED', 'CHILD_PLACED', 'FIRED', 'ARMED', 'CREATED']);
    const firedEvent = events[3];
    expect(firedEvent).toMatchObject({ firePx: '28900', childSeq: 1, triggerType: 'STOP_LOSS', symbol: 'BTC-USDC', childOrderId: expect.any(String) });
    expect(firedEvent.childOrderId).not.toBe('');
    expect(events[1].childOrderId).toBe(firedEvent.childOrderId);
    expect(events[2].childOrderId).toBe(firedEvent.childOrderId);
    const onlyFired = (await api(server.url, 'GET', `/v1/triggers/${listed.triggerId}/events?eventType=FIRED`, undefined, owner.auth)).body.events;
    expect(onlyFired).toHaveLength(1);

    const child = (await api(server.url, 'GET', `/v1/orders/${firedEvent.childOrderId}`, undefined, owner.auth)).body.order;
    expect(child).toMatchObject({ side: 'SELL', orderType: 'MARKET', status: 'FILLED', cumQty: '0.1', origin: { scope: 'TRIGGER', triggerType: 'STOP_LOSS', childSeq: 1 } });
    expect((await balancesOf(server.url, owner))['TRADING:BTC']).toEqual({ available: '0.9', held: '0' });

    // A later trade through the price fires nothing more.
    expect((await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', limitIoc: { price: '28900' } })).status).toBe(200);
    const after = (await api(server.url, 'GET', `/v1/triggers/${listed.triggerId}/events`, undefined, owner.auth)).body.events;
    expect(after).toHaveLength(6);
  });

  it('take-profit fires on the favourable move; cancel releases the hold and answers 404 once ended', async () => {
    const tp = await api(server.url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.2', takeProfit: { side: 'SELL', triggerPrice: '40000', child: { limit: { price: '40000' } } } } }, owner.auth);
    expect(tp.status, JSON.stringify(tp.body)).toBe(200);
    const got = (await api(server.url, 'GET', `/v1/triggers/${tp.body.triggerId}`, undefined, owner.auth)).body.trigger;
    expect(got).toMatchObject({ triggerType: 'TAKE_PROFIT', stop: { triggerDirection: 'ABOVE' }, takeProfit: { child: { limit: { price: '40000', postOnly: false } } } });
    expect((await balancesOf(server.url, owner))['TRADING:BTC']).toEqual({ available: '0.7', held: '0.2' });

    const canceled = await api(server.url, 'POST', '/v1/triggers/cancel', { triggerId: tp.body.triggerId }, owner.auth);
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body.trigger).toMatchObject({ status: 'CANCELED', cancelReason: 'USER_REQUEST' });
    expect((await balancesOf(server.url, owner))['TRADING:BTC']).toEqual({ available: '0.9', held: '0' });
    expect((await api(server.url, 'POST', '/v1/triggers/cancel', { triggerId: tp.body.triggerId }, owner.auth)).status).toBe(404);
    const list = (await api(server.url, 'GET', '/v1/triggers?status=CANCELED,COMPLETED&triggerType=TAKE_PROFIT', undefined, owner.auth)).body.triggers;
    expect(list.map((t: { triggerId: string }) => t.triggerId)).toEqual([tp.body.triggerId]);
  });

  it('keeps its event log append-only: the database refuses to change or delete an event', async () => {
    await projected((text) => server.database.sql.query(text));
    await expect(server.database.sql.query(`UPDATE "TriggerEvent" SET "childSeq" = 9`)).rejects.toThrow(/append-only/);
    await expect(server.database.sql.query(`DELETE FROM "TriggerEvent"`)).rejects.toThrow(/append-only/);
  });
});

describe('an armed trigger across a restart', () => {
  it('is rebuilt from the journal and the tables, still holds its funds, and fires after the restart', async () => {
    const database = await testDatabase();
    try {
      let app = await startTestApp({ database });
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { BTC: '1' });
      const created = await api(app.url, 'POST', '/v1/triggers', stopLoss('29500'), owner.auth);
      expect(created.status).toBe(200);
      await app.app.close();

      app = await startTestApp({ database });
      try {
        expect((await api(app.url, 'GET', `/v1/triggers/${created.body.triggerId}`, undefined, owner.auth)).body.trigger.status).toBe('ARMED');
        expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0.9', held: '0.1' });
        const bidder = await trader(app.url, { USDC: '100000' });
        expect((await placeOrder(app.url, bidder, gtc('BUY', '0.2', '29400'))).status).toBe(200);
        const seller = await trader(app.url, { BTC: '1' });
        expect((await placeOrder(app.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', limitIoc: { price: '29400' } })).status).toBe(200);
        expect((await api(app.url, 'GET', `/v1/triggers/${created.body.triggerId}`, undefined, owner.auth)).body.trigger).toMatchObject({ status: 'COMPLETED', state: { firePx: '29400', cumFilledQty: '0.1' } });
      } finally {
        await app.app.close();
      }
    } finally {
      await database.drop();
    }
  });
});

describe('triggers over GraphQL', () => {
  it('creates, lists, cancels and shows the events of a trigger, with the /v1 refusals', async () => {
    await printTrade(server.url, '30000');
    const owner = await trader(server.url, { BTC: '1' });
    const created = await gql(server.url, CreateTriggerDocument, { trigger: { symbol: 'BTC-USDC', qty: '0.1', clientTriggerId: 'g-1', stopLoss: { side: 'SELL', triggerPrice: '29000', child: { marketIoc: { maxSlippageBps: 100 } } } } }, owner.auth);
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data?.createTrigger).toMatchObject({
      clientTriggerId: 'g-1',
      status: 'ARMED',
      triggerType: 'STOP_LOSS',
      stop: { triggerDirection: 'BELOW', triggerPrice: '29000', triggerPriceSource: 'LAST_PRICE' },
      stopLoss: { side: 'SELL', child: { kind: 'MARKET_IOC', limitPrice: null, maxSlippageBps: 100 } },
      takeProfit: null,
      state: { held: '0.1' },
    });
    const triggerId = created.body.data?.createTrigger.triggerId as string;
    const atOnce = await gql(server.url, CreateTriggerDocument, { trigger: { symbol: 'BTC-USDC', qty: '0.1', stopLoss: { side: 'SELL', triggerPrice: '31000', child: { marketIoc: {} } } } }, owner.auth);
    expect(atOnce.body.errors?.[0]?.extensions).toMatchObject({ code: 'TRIGGER_WOULD_FIRE_IMMEDIATELY', status: 400 });

    const listed = await gql(server.url, TriggersDocument, { status: ['ARMED'] }, owner.auth);
    expect(listed.body.data?.triggers.triggers.map((t) => t.triggerId)).toEqual([triggerId]);
    const canceled = await gql(server.url, CancelTriggerDocument, { clientTriggerId: 'g-1' }, owner.auth);
    expect(canceled.body.data?.cancelTrigger).toMatchObject({ triggerId, status: 'CANCELED', cancelReason: 'USER_REQUEST' });
    const events = await gql(server.url, TriggerEventsDocument, { triggerId }, owner.auth);
    expect(events.body.data?.triggerEvents.events.map((e) => e.eventType)).toEqual(['CANCELED', 'ARMED', 'CREATED']);
    expect((await balancesOf(server.url, owner))['TRADING:BTC']).toEqual({ available: '1', held: '0' });
  });
});

describe('the triggerEvents subscription', () => {
  it('streams each transition after commit, in order, and resumes after a sequence with every missed event exactly once', async () => {
    await printTrade(server.url, '30000');
    const owner = await trader(server.url, { BTC: '1' });
    const client = wsClient(server.url, { authorization: owner.auth.authorization as string });
    try {
      const live = collect(client, TriggerEventUpdatesDocument, {}, 6);
      await new Promise((r) => setTimeout(r, 300));
      const created = await api(server.url, 'POST', '/v1/triggers', stopLoss('29800'), owner.auth);
      expect(created.status).toBe(200);
      const bidder = await trader(server.url, { USDC: '100000' });
      expect((await placeOrder(server.url, bidder, gtc('BUY', '0.2', '29700'))).status).toBe(200);
      const seller = await trader(server.url, { BTC: '1' });
      expect((await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', limitIoc: { price: '29700' } })).status).toBe(200);
      const events = (await live).map((r) => r.data?.triggerEvents);
      expect(events.map((e) => e?.eventType)).toEqual(['CREATED', 'ARMED', 'FIRED', 'CHILD_PLACED', 'CHILD_FILLED', 'COMPLETED']);
      expect(new Set(events.map((e) => e?.triggerId))).toEqual(new Set([created.body.triggerId]));
      const sequences = events.map((e) => BigInt(e?.sequence as string));
      expect([...sequences].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequences);
      expect(events[2]).toMatchObject({ firePx: '29700', childSeq: 1 });
      expect(events[2]?.childOrderId).toBe(events[3]?.childOrderId);
      expect(events[2]?.childOrderId).not.toBe('');

      // A client that saw only up to ARMED resumes after it.
      const resumed = await collect(client, TriggerEventUpdatesDocument, { after: events[1]?.sequence as string }, 4);
      expect(resumed.map((r) => [r.data?.triggerEvents.eventType, r.data?.triggerEvents.sequence])).toEqual(events.slice(2).map((e) => [e?.eventType, e?.sequence]));
    } finally {
      await client.dispose();
    }
  });
});

describe('pause and resume', () => {
  it('a paused trigger ignores prices and keeps its funds held; resume re-arms it, refused while the price is through it', async () => {
    const db = await testDatabase();
    const app = await startTestApp({ database: db });
    try {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { BTC: '1' });
      const created = await api(app.url, 'POST', '/v1/triggers', stopLoss('29000', { clientTriggerId: 'p-1' }), owner.auth);
      const paused = await api(app.url, 'POST', '/v1/triggers/pause', { clientTriggerId: 'p-1' }, owner.auth);
      expect(paused.status, JSON.stringify(paused.body)).toBe(200);
      expect(paused.body.trigger).toMatchObject({ status: 'PAUSED', state: { held: '0.1' } });
      expect((await api(app.url, 'POST', '/v1/triggers/pause', { triggerId: created.body.triggerId }, owner.auth)).body.trigger.status).toBe('PAUSED');

      await printTrade(app.url, '28900');
      expect((await api(app.url, 'GET', `/v1/triggers/${created.body.triggerId}`, undefined, owner.auth)).body.trigger.status).toBe('PAUSED');
      const early = await api(app.url, 'POST', '/v1/triggers/resume', { triggerId: created.body.triggerId }, owner.auth);
      expect(early.status).toBe(400);
      expect(early.body.code).toBe('TRIGGER_WOULD_FIRE_IMMEDIATELY');

      await printTrade(app.url, '30000');
      const resumed = await api(app.url, 'POST', '/v1/triggers/resume', { triggerId: created.body.triggerId }, owner.auth);
      expect(resumed.body.trigger).toMatchObject({ status: 'ARMED', state: { held: '0.1' } });
      const events = (await api(app.url, 'GET', `/v1/triggers/${created.body.triggerId}/events`, undefined, owner.auth)).body.events;
      expect(events.map((e: { eventType: string }) => e.eventType)).toEqual(['RESUMED', 'PAUSED', 'ARMED', 'CREATED']);
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0.9', held: '0.1' });

      const canceled = await api(app.url, 'POST', '/v1/triggers/cancel', { triggerId: created.body.triggerId }, owner.auth);
      expect(canceled.body.trigger.status).toBe('CANCELED');
      const ended = await api(app.url, 'POST', '/v1/triggers/resume', { triggerId: created.body.triggerId }, owner.auth);
      expect(ended.status).toBe(404);
    } finally {
      await app.close();
      await db.drop();
    }
  });
});

describe('trailing stop', () => {
  it('follows the peak, never lowers its threshold, and fires its market child on the retrace', async () => {
    const db = await testDatabase();
    const app = await startTestApp({ database: db });
    try {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { BTC: '1' });
      const noRef = await api(app.url, 'POST', '/v1/triggers', { trigger: { symbol: 'ETH-USDC', qty: '0.1', trailingStop: { side: 'SELL', trailingDistanceBps: 100 } } }, owner.auth);
      expect(noRef.status).toBe(400);
      expect(noRef.body.code).toBe('NO_REFERENCE_PRICE');
      const both = await api(app.url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.1', trailingStop: { side: 'SELL', trailingDistanceBps: 100, trailingDistanceTicks: '5' } } }, owner.auth);
      expect(both.status).toBe(400);

      const created = await api(app.url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.1', trailingStop: { side: 'SELL', trailingDistanceBps: 100 } } }, owner.auth);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const get = async () => (await api(app.url, 'GET', `/v1/triggers/${created.body.triggerId}`, undefined, owner.auth)).body.trigger;
      // Active at once from the last price: 30000 less 1%.
      expect(await get()).toMatchObject({ triggerType: 'TRAILING_STOP', status: 'ARMED', stop: { triggerDirection: 'BELOW', triggerPrice: '29700' }, trailingStop: { side: 'SELL', trailingDistanceBps: 100 }, state: { held: '0.1', trailing: { active: true, peakPrice: '30000', currentThreshold: '29700' } } });

      await printTrade(app.url, '31000');
      expect((await get()).state.trailing).toEqual({ active: true, peakPrice: '31000', currentThreshold: '30690' });
      // Falling back, but not by 1%: nothing fires and the threshold stays.
      await printTrade(app.url, '30800');
      expect(await get()).toMatchObject({ status: 'ARMED', state: { trailing: { peakPrice: '31000', currentThreshold: '30690' } } });

      const bidder = await trader(app.url, { USDC: '100000' });
      expect((await placeOrder(app.url, bidder, gtc('BUY', '0.3', '30650'))).status).toBe(200);
      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', limitIoc: { price: '30650' } })).status).toBe(200);
      const fired = await get();
      expect(fired).toMatchObject({ status: 'COMPLETED', state: { firePx: '30650', cumFilledQty: '0.1', held: '0' } });
      const events = (await api(app.url, 'GET', `/v1/triggers/${created.body.triggerId}/events`, undefined, owner.auth)).body.events;
      expect(events.map((e: { eventType: string }) => e.eventType)).toEqual(['COMPLETED', 'CHILD_FILLED', 'CHILD_PLACED', 'FIRED', 'ARMED', 'CREATED']);
      const child = (await api(app.url, 'GET', `/v1/orders/${events[3].childOrderId}`, undefined, owner.auth)).body.order;
      expect(child).toMatchObject({ status: 'FILLED', marketClientRefPrice: '30690', origin: { scope: 'TRIGGER', triggerType: 'TRAILING_STOP' } });

      // With an activation price it waits: nothing follows below 32000.
      const waiting = await api(app.url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.1', trailingStop: { side: 'SELL', activationPrice: '32000', trailingDistanceTicks: '10000' } } }, owner.auth);
      expect((await api(app.url, 'GET', `/v1/triggers/${waiting.body.triggerId}`, undefined, owner.auth)).body.trigger).toMatchObject({ stop: { triggerPrice: '' }, state: { trailing: { active: false, currentThreshold: '' } } });
      await printTrade(app.url, '32000');
      const activated = (await api(app.url, 'GET', `/v1/triggers/${waiting.body.triggerId}`, undefined, owner.auth)).body.trigger;
      expect(activated.state.trailing).toEqual({ active: true, peakPrice: '32000', currentThreshold: '31900' });
      const activatedEvents = (await api(app.url, 'GET', `/v1/triggers/${waiting.body.triggerId}/events?eventType=THRESHOLD_UPDATED`, undefined, owner.auth)).body.events;
      expect(activatedEvents).toHaveLength(1);
    } finally {
      await app.close();
      await db.drop();
    }
  });
});

describe('TWAP', () => {
  const twap = (qty: string, durationMs: number, intervalMs: number) => ({ trigger: { symbol: 'BTC-USDC', qty, twap: { side: 'BUY', durationMs, intervalMs, maxAdverseBps: 100 } } });

  it('works its quantity in slices and ends in a distinct state for all, part and none filled', async () => {
    const db = await testDatabase();
    const app = await startTestApp({ database: db });
    try {
      await printTrade(app.url, '30000');
      const buyer = await trader(app.url, { USDC: '100000' });
      const seller = await trader(app.url, { BTC: '1' });
      const get = async (id: string) => (await api(app.url, 'GET', `/v1/triggers/${id}`, undefined, buyer.auth)).body.trigger;
      const ended = (id: string) => pollUntil(async () => ['COMPLETED', 'EXPIRED', 'FAILED'].includes((await get(id)).status), 15_000, 100);

      // All filled: four slices of 0.1 at most 1% above 30000, against a resting ask.
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.4', '30100'))).status).toBe(200);
      const full = await api(app.url, 'POST', '/v1/triggers', twap('0.4', 2_000, 500), buyer.auth);
      expect(full.status, JSON.stringify(full.body)).toBe(200);
      expect(await get(full.body.triggerId)).toMatchObject({ triggerType: 'TWAP', status: 'ARMED', twap: { side: 'BUY', durationMs: 2000, intervalMs: 500, maxAdverseBps: 100 }, state: { twap: { plannedSlices: 4, startPrice: '30000', slicePrice: '30300' } } });
      await ended(full.body.triggerId);
      expect(await get(full.body.triggerId)).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.4', childOrders: 4, held: '0', twap: { sliceIndex: 4, skippedSlices: 0 } } });
      const events = (await api(app.url, 'GET', `/v1/triggers/${full.body.triggerId}/events`, undefined, buyer.auth)).body.events;
      expect(events.map((e: { eventType: string }) => e.eventType)).toEqual(['COMPLETED', 'CHILD_FILLED', 'CHILD_PLACED', 'CHILD_FILLED', 'CHILD_PLACED', 'CHILD_FILLED', 'CHILD_PLACED', 'CHILD_FILLED', 'CHILD_PLACED', 'ARMED', 'CREATED']);
      expect(events.filter((e: { eventType: string }) => e.eventType === 'CHILD_PLACED').map((e: { childSeq: number }) => e.childSeq)).toEqual([4, 3, 2, 1]);

      // Part filled: only 0.15 offered within the bound.
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.15', '30100'))).status).toBe(200);
      const part = await api(app.url, 'POST', '/v1/triggers', twap('0.4', 2_000, 500), buyer.auth);
      await ended(part.body.triggerId);
      expect(await get(part.body.triggerId)).toMatchObject({ status: 'EXPIRED', state: { cumFilledQty: '0.15', held: '0' } });

      // None filled: nothing offered within 1% of 30000.
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.4', '31000'))).status).toBe(200);
      const none = await api(app.url, 'POST', '/v1/triggers', twap('0.4', 1_000, 500), buyer.auth);
      await ended(none.body.triggerId);
      expect(await get(none.body.triggerId)).toMatchObject({ status: 'FAILED', failureReason: 'NO_LIQUIDITY', state: { cumFilledQty: '0', held: '0' } });
      expect((await balancesOf(app.url, buyer))['TRADING:USDC']?.held).toBe('0');
    } finally {
      await app.close();
      await db.drop();
    }
  });

  it('resumes at the right slice after a restart', async () => {
    const db = await testDatabase();
    let app = await startTestApp({ database: db });
    try {
      await printTrade(app.url, '30000');
      const buyer = await trader(app.url, { USDC: '100000' });
      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.3', '30100'))).status).toBe(200);
      const created = await api(app.url, 'POST', '/v1/triggers', twap('0.3', 3_000, 1_000), buyer.auth);
      const get = async (url: string) => (await api(url, 'GET', `/v1/triggers/${created.body.triggerId}`, undefined, buyer.auth)).body.trigger;
      await pollUntil(async () => (await get(app.url)).state.twap.sliceIndex >= 1, 10_000, 50);
      await app.app.close();

      app = await startTestApp({ database: db });
      const after = await get(app.url);
      expect(after.state.twap.sliceIndex).toBeGreaterThanOrEqual(1);
      expect(after.state.twap.sliceIndex).toBeLessThan(3);
      await pollUntil(async () => (await get(app.url)).status === 'COMPLETED', 15_000, 100);
      // Every slice ran once: three children, 0.3 filled, no slice repeated or lost.
      expect(await get(app.url)).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.3', childOrders: 3, twap: { sliceIndex: 3 } } });
    } finally {
      await app.close();
      await db.drop();
    }
  });
});

describe('ladder', () => {
  it('rests its levels at once, reports the levels with fills, completes when every level has ended, and takes them with it when canceled', async () => {
    const db = await testDatabase();
    const app = await startTestApp({ database: db });
    try {
      const buyer = await trader(app.url, { USDC: '100000' });
      const seller = await trader(app.url, { BTC: '1' });
      const ladder = (qty: string, levels: number, minPrice: string, maxPrice: string, extra: Record<string, unknown> = {}) => ({ trigger: { symbol: 'BTC-USDC', qty, ladder: { side: 'BUY', levels, minPrice, maxPrice, ...extra } } });
      const get = async (id: string) => (await api(app.url, 'GET', `/v1/triggers/${id}`, undefined, buyer.auth)).body.trigger;

      const created = await api(app.url, 'POST', '/v1/triggers', ladder('0.5', 5, '29000', '29400'), buyer.auth);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const t = await get(created.body.triggerId);
      expect(t).toMatchObject({ triggerType: 'LADDER', status: 'RUNNING', ladder: { side: 'BUY', levels: 5, minPrice: '29000', maxPrice: '29400', distribution: 'FLAT', postOnly: true }, state: { childOrders: 5, ladder: { levelsWithFills: 0 } } });
      expect(t.state.ladder.levels.map((l: { price: string; qty: string }) => [l.price, l.qty])).toEqual([['29000', '0.1'], ['29100', '0.1'], ['29200', '0.1'], ['29300', '0.1'], ['29400', '0.1']]);
      const children = (await api(app.url, 'GET', `/v1/orders/open?triggerId=${created.body.triggerId}`, undefined, buyer.auth)).body.orders;
      expect(children).toHaveLength(5);
      expect(children.every((o: { postOnly: boolean; origin: { scope: string } }) => o.postOnly && o.origin.scope === 'TRIGGER')).toBe(true);

      // A seller takes the top level and half the next.
      expect((await placeOrder(app.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.15', limitIoc: { price: '29300' } })).status).toBe(200);
      expect(await get(created.body.triggerId)).toMatchObject({ status: 'RUNNING', state: { cumFilledQty: '0.15', ladder: { levelsWithFills: 2 } } });

      const canceled = await api(app.url, 'POST', '/v1/triggers/cancel', { triggerId: created.body.triggerId }, buyer.auth);
      expect(canceled.body.trigger).toMatchObject({ status: 'CANCELED', state: { cumFilledQty: '0.15' } });
      expect((await api(app.url, 'GET', `/v1/orders/open?triggerId=${created.body.triggerId}`, undefined, buyer.auth)).body.orders).toHaveLength(0);
      expect((await balancesOf(app.url, buyer))['TRADING:USDC']?.held).toBe('0');

      // Every level filled: completed.
      const full = await api(app.url, 'POST', '/v1/triggers', ladder('0.2', 2, '28000', '28100', { distribution: 'DESCENDING' }), buyer.auth);
      // DESCENDING: weights 2 and 1, more at the lower price.
      expect((await get(full.body.triggerId)).state.ladder.levels.map((l: { qty: string }) => l.qty)).toEqual(['0.133334', '0.066666']);
      expect((await placeOrder(app.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.2', limitIoc: { price: '28000' } })).status).toBe(200);
      expect(await get(full.body.triggerId)).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.2', ladder: { levelsWithFills: 2 } } });

      // A level that would take liquidity refuses the whole ladder: nothing is placed or held.
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.1', '27000'))).status).toBe(200);
      const taking = await api(app.url, 'POST', '/v1/triggers', ladder('0.2', 2, '26900', '27100'), buyer.auth);
      expect(taking.status).toBe(400);
      expect(taking.body.code).toBe('POST_ONLY_WOULD_TAKE');
      expect((await balancesOf(app.url, buyer))['TRADING:USDC']?.held).toBe('0');
      const tooMany = await api(app.url, 'POST', '/v1/triggers', ladder('0.2', 5, '26000', '26000.02'), buyer.auth);
      expect(tooMany.status).toBe(400);
    } finally {
      await app.close();
      await db.drop();
    }
  });
});

describe('attached risk', () => {
  it('arms its legs as the parent fills, resizes them on every fill, keeps them after a partial cancel, and an OCO leg firing cancels its sibling', async () => {
    const db = await testDatabase();
    const app = await startTestApp({ database: db });
    try {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { USDC: '100000' });
      const trigger = async (id: string) => (await api(app.url, 'GET', `/v1/triggers/${id}`, undefined, owner.auth)).body.trigger;
      const attachedRisk = { oco: true, stopLoss: { triggerPrice: '29000', child: { marketIoc: {} } }, takeProfit: { triggerPrice: '31000', child: { marketIoc: {} } } };
      const parent = await placeOrder(app.url, owner, { ...gtc('BUY', '0.2', '30000'), attachedRisk });
      expect(parent.status, JSON.stringify(parent.body)).toBe(200);
      const { stopLossTriggerId: sl, takeProfitTriggerId: tp } = parent.body;
      expect(await trigger(sl)).toMatchObject({ status: 'CREATED', triggerType: 'STOP_LOSS', parentOrderId: parent.body.orderId, qty: '0', stopLoss: { side: 'SELL', triggerPrice: '29000' } });

      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.1', limitIoc: { price: '30000' } })).status).toBe(200);
      expect(await trigger(sl)).toMatchObject({ status: 'ARMED', qty: '0.1' });
      expect(await trigger(tp)).toMatchObject({ status: 'ARMED', qty: '0.1' });
      // The pair shares one hold: the base the parent bought.
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.1' });
      expect((await placeOrder(app.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.05', limitIoc: { price: '30000' } })).status).toBe(200);
      expect(await trigger(sl)).toMatchObject({ status: 'ARMED', qty: '0.15' });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.15' });
      const open = (await api(app.url, 'GET', '/v1/orders/open?includeAttachedRiskState=true', undefined, owner.auth)).body.orders;
      expect(open[0].attachedRisk).toMatchObject({ oco: true, stopLoss: { state: { status: 'ARMED', triggerId: sl } }, takeProfit: { state: { status: 'ARMED', triggerId: tp } } });

      // Canceled after a partial fill: the legs stay, for what was filled.
      expect((await api(app.url, 'POST', '/v1/orders/cancel', { orderId: parent.body.orderId }, owner.auth)).status).toBe(200);
      expect(await trigger(sl)).toMatchObject({ status: 'ARMED', qty: '0.15' });

      // The take-profit fires at 31000; its sibling is canceled in the same commit.
      const bidder = await trader(app.url, { USDC: '100000' });
      expect((await placeOrder(app.url, bidder, gtc('BUY', '0.3', '30900'))).status).toBe(200);
      await printTrade(app.url, '31000');
      expect(await trigger(tp)).toMatchObject({ status: 'COMPLETED', state: { firePx: '31000', cumFilledQty: '0.15' } });
      expect(await trigger(sl)).toMatchObject({ status: 'CANCELED', cancelReason: 'OCO_SIBLING_FIRED' });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toBeUndefined();

      // A parent canceled before any fill takes its legs with it.
      const unfilled = await placeOrder(app.url, owner, { ...gtc('BUY', '0.1', '20000'), attachedRisk: { stopLoss: { triggerPrice: '19000', child: { marketIoc: {} } } } });
      await api(app.url, 'POST', '/v1/orders/cancel', { orderId: unfilled.body.orderId }, owner.auth);
      expect(await trigger(unfilled.body.stopLossTriggerId)).toMatchObject({ status: 'CANCELED', cancelReason: 'PARENT_CANCELED' });
    } finally {
      await app.close();
      await db.drop();
    }
  });

  it('carries the legs of a replaced parent to its next generation in the same commit', async () => {
    const db = await testDatabase();
    const app = await startTestApp({ database: db });
    try {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { USDC: '100000' });
      const parent = await placeOrder(app.url, owner, { ...gtc('BUY', '0.2', '30000'), attachedRisk: { stopLoss: { triggerPrice: '29000', child: { marketIoc: {} } } } });
      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.1', limitIoc: { price: '30000' } })).status).toBe(200);
      const replaced = await api(app.url, 'POST', '/v1/orders/replace', { orderId: parent.body.orderId, order: gtc('BUY', '0.3', '29900') }, owner.auth);
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      const legs = (await api(app.url, 'GET', `/v1/triggers?parentOrderId=${replaced.body.orderId}`, undefined, owner.auth)).body.triggers;
      expect(legs.map((t: { triggerId: string; status: string; qty: string }) => [t.triggerId, t.status, t.qty])).toEqual([[parent.body.stopLossTriggerId, 'ARMED', '0.1']]);
      const open = (await api(app.url, 'GET', '/v1/orders/open?includeAttachedRiskState=true', undefined, owner.auth)).body.orders;
      expect(open.map((o: { orderId: string }) => o.orderId)).toEqual([replaced.body.orderId]);
      expect(open[0].attachedRisk.stopLoss.state).toMatchObject({ status: 'ARMED', triggerId: parent.body.stopLossTriggerId });
      // The next generation's fill grows the same leg.
      expect((await placeOrder(app.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.05', limitIoc: { price: '29900' } })).status).toBe(200);
      expect((await api(app.url, 'GET', `/v1/triggers/${parent.body.stopLossTriggerId}`, undefined, owner.auth)).body.trigger).toMatchObject({ status: 'ARMED', qty: '0.15' });
    } finally {
      await app.close();
      await db.drop();
    }
  });
});

describe('triggers over signed /v1 requests', () => {
  it('an API key with TRADE creates, reads and cancels a trigger; one with READ only may read but not create', async () => {
    await printTrade(server.url, '30000');
    const owner = await trader(server.url, { BTC: '1' });
    const terms = await api(server.url, 'GET', '/v1/auth/terms', undefined, owner.auth);
    await api(server.url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, owner.auth);
    const keyWith = async (permissions: string[]): Promise<ClientKey> => {
      const policy = await api(server.url, 'POST', '/v1/auth/api-policies', { name: `p-${permissions.join('-')}`, permissions }, owner.auth);
      const pair = newKeyPair();
      const created = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'k', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId }, owner.auth);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      return { keyId: created.body.apiKey.keyId, ...pair };
    };
    const trading = await keyWith(['READ', 'TRADE']);
    const reading = await keyWith(['READ']);
    const body = stopLoss('29000', { clientTriggerId: 'signed-1' });
    const refused = await signed(server.url, reading, 'POST', '/v1/triggers', body);
    expect(refused.status).toBe(403);
    const created = await signed(server.url, trading, 'POST', '/v1/triggers', body);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const read = await signed(server.url, reading, 'GET', `/v1/triggers/${created.body.triggerId}`);
    expect(read.body.trigger).toMatchObject({ status: 'ARMED', clientTriggerId: 'signed-1' });
    const canceled = await signed(server.url, trading, 'POST', '/v1/triggers/cancel', { clientTriggerId: 'signed-1' });
    expect(canceled.body.trigger.status).toBe('CANCELED');
  });
});

describe('a fired trigger whose child is refused', () => {
  it('fails with the reason, releases its funds, and says so in its events; a child too small is refused at acceptance', async () => {
    const db = await testDatabase();
    const app = await startTestApp({ database: db });
    try {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { BTC: '1' });
      const tiny = await api(app.url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.00001', stopLoss: { side: 'SELL', triggerPrice: '29000', child: { limit: { price: '1' } } } } }, owner.auth);
      expect(tiny.status).toBe(400);
      expect(tiny.body.violations[0]).toMatchObject({ fieldPath: 'trigger.qty', ruleId: 'min-notional' });

      // A post-only limit child at 30500: when the take-profit fires at 31000 a bid above 30500 rests, so it would take.
      const tp = await api(app.url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.1', takeProfit: { side: 'SELL', triggerPrice: '31000', child: { limit: { price: '30500', postOnly: true } } } } }, owner.auth);
      expect(tp.status, JSON.stringify(tp.body)).toBe(200);
      const bidder = await trader(app.url, { USDC: '100000' });
      expect((await placeOrder(app.url, bidder, gtc('BUY', '0.2', '30900'))).status).toBe(200);
      await printTrade(app.url, '31000');
      const failed = (await api(app.url, 'GET', `/v1/triggers/${tp.body.triggerId}`, undefined, owner.auth)).body.trigger;
      expect(failed).toMatchObject({ status: 'FAILED', failureReason: 'CHILD_REJECTED', state: { firePx: '31000', cumFilledQty: '0', held: '0' } });
      const events = (await api(app.url, 'GET', `/v1/triggers/${tp.body.triggerId}/events`, undefined, owner.auth)).body.events;
      expect(events.map((e: { eventType: string }) => e.eventType)).toEqual(['FAILED', 'CHILD_REJECTED', 'FIRED', 'ARMED', 'CREATED']);
      expect(events[0]).toMatchObject({ failureReason: 'CHILD_REJECTED' });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '1', held: '0' });
    } finally {
      await app.close();
      await db.drop();
    }
  });
});
