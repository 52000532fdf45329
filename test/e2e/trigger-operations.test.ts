import { describe, expect, it } from 'vitest';
import { api, signed, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { graphql as graphqlData, graphqlRaw, withApp } from '../helpers/triggerApp.ts';
import { sseSubscription } from '../helpers/streams.ts';
import { balancesOf, gtc, ioc, placeOrder, printTrade, tradingKey, trader } from '../helpers/trading.ts';

/**
 * Managing triggers (issue 25): cancel all triggers, a trigger's expiry (GTD), the cap on
 * live triggers per account. Over signed /v1 requests (an API key, as a bot trades) and
 * over GraphQL, hostile input included.
 */

const sellStop = (triggerPrice: string, extra: Record<string, unknown> = {}) => ({ symbol: 'BTC-USDC', qty: '0.1', stopLoss: { side: 'SELL', triggerPrice, child: { marketIoc: {} } }, ...extra });

/** A GraphQL request with the caller's session: its data, or its errors when `errors` is asked for. */
async function graphql(url: string, who: SignedIn, query: string, variables: Record<string, unknown> = {}, errors = false) {
  return errors ? ((await graphqlRaw(url, who, query, variables)).errors as any) : graphqlData(url, who, query, variables);
}

const TRIGGER = `query T($id: String!) { trigger(triggerId: $id) { status cancelReason expireAt state { held } } }`;
const CREATE = `mutation C($t: TriggerInput!) { createTrigger(trigger: $t) { triggerId status expireAt } }`;

async function getTrigger(url: string, who: SignedIn, id: string) {
  return (await api(url, 'GET', `/v1/triggers/${id}`, undefined, who.auth)).body.trigger;
}

/** The signed-request helpers of one API key. */
function as(url: string, key: ClientKey) {
  return {
    trigger: async (id: string) => (await signed(url, key, 'GET', `/v1/triggers/${id}`)).body.trigger,
    events: async (id: string) => ((await signed(url, key, 'GET', `/v1/triggers/${id}/events`)).body.events as { eventType: string }[]).map((e) => e.eventType),
    create: async (trigger: Record<string, unknown>) => {
      const r = await signed(url, key, 'POST', '/v1/triggers', { trigger });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.triggerId as string;
    },
  };
}

describe('cancel all triggers', () => {
  it('cancels the live triggers of the symbol in one job, holds released, answering their ids; legs of orders only with includeAttached; other accounts untouched (signed /v1 and GraphQL)', async () => {
    await withApp(async (app) => {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { USDC: '100000', BTC: '1' });
      const key = await tradingKey(app.url, owner);
      const { trigger, create } = as(app.url, key);
      const stop = await create(sellStop('29000'));
      const twap = await create({ symbol: 'BTC-USDC', qty: '1', twap: { side: 'BUY', durationMs: 600_000, intervalMs: 1_000, maxAdverseBps: 100 } });
      const ladder = await create({ symbol: 'BTC-USDC', qty: '0.3', ladder: { side: 'BUY', levels: 3, minPrice: '29000', maxPrice: '29200' } });
      const eth = await create({ symbol: 'ETH-USDC', qty: '0.1', ladder: { side: 'BUY', levels: 1, minPrice: '100', maxPrice: '100' } });
      const parent = await signed(app.url, key, 'POST', '/v1/orders', { order: gtc('BUY', '0.1', '29500', { attachedRisk: { stopLoss: { triggerPrice: '29000', child: { marketIoc: {} } } } }) });
      expect(parent.status, JSON.stringify(parent.body)).toBe(200);
      const leg = parent.body.stopLossTriggerId as string;
      const other = await trader(app.url, { BTC: '1' });
      const otherKey = await tradingKey(app.url, other);
      const othersStop = await as(app.url, otherKey).create(sellStop('29000'));

      // Without the legs: the standalone triggers of BTC-USDC, and nothing else.
      const r = await signed(app.url, key, 'POST', '/v1/triggers/cancel-all', { symbol: 'BTC-USDC', includeAttached: false });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect([...r.body.canceledTriggerIds].sort()).toEqual([stop, twap, ladder].sort());
      expect(r.body.canceledCount).toBe(3);
      expect(r.body.tsNs).toMatch(/^[1-9][0-9]*$/);
      for (const id of [stop, twap, ladder]) expect(await trigger(id)).toMatchObject({ status: 'CANCELED', cancelReason: 'CANCEL_ALL', state: { held: '0' } });
      for (const level of (await trigger(ladder)).state.ladder.levels as { orderId: string }[]) expect((await signed(app.url, key, 'GET', `/v1/orders/${level.orderId}`)).body.order.status).toBe('CANCELED');
      expect(await trigger(leg)).toMatchObject({ status: expect.not.stringMatching(/CANCELED/) });
      expect(await trigger(eth)).toMatchObject({ status: 'RUNNING' });
      expect((await as(app.url, otherKey).trigger(othersStop)).status).toBe('ARMED');
      // The parent order rests on: cancel-all of triggers cancels no order of the account's own.
      expect((await signed(app.url, key, 'GET', `/v1/orders/${parent.body.orderId}`)).body.order.status).toBe('NEW');

      // GraphQL, every symbol, the legs by default: the leg and the ETH ladder.
      const all = await graphql(app.url, owner, `mutation { cancelAllTriggers { canceledTriggerIds canceledCount ts tsNs } }`);
      expect([...all.cancelAllTriggers.canceledTriggerIds].sort()).toEqual([leg, eth].sort());
      expect(all.cancelAllTriggers.canceledCount).toBe(2);
      // ts and tsNs as REST writes them: one instant.
      expect(BigInt(Date.parse(all.cancelAllTriggers.ts)) * 1_000_000n).toBe((BigInt(all.cancelAllTriggers.tsNs) / 1_000_000n) * 1_000_000n);
      expect((await graphql(app.url, owner, TRIGGER, { id: leg })).trigger).toMatchObject({ status: 'CANCELED', cancelReason: 'CANCEL_ALL' });
      // Nothing is left to cancel: an empty answer, not an error.
      const none = await signed(app.url, key, 'POST', '/v1/triggers/cancel-all', {});
      expect(none.body).toMatchObject({ canceledTriggerIds: [], canceledCount: 0 });
      // Only the resting parent holds funds now: 0.1 × 29500 plus its fee.
      expect(Number((await balancesOf(app.url, owner))['TRADING:USDC']?.held)).toBeLessThan(2_960);
      expect((await balancesOf(app.url, owner))['TRADING:BTC']?.held).toBe('0');
      expect((await as(app.url, otherKey).trigger(othersStop)).status).toBe('ARMED');
    });
  });

  it('refuses a symbol that is not listed and a malformed body with the spec error, canceling nothing (signed /v1 and GraphQL)', async () => {
    await withApp(async (app) => {
      const owner = await trader(app.url, { BTC: '1' });
      const key = await tradingKey(app.url, owner);
      const stop = await as(app.url, key).create(sellStop('29000'));
      const unknown = await signed(app.url, key, 'POST', '/v1/triggers/cancel-all', { symbol: 'NOPE-USDC' });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ code: 'UNKNOWN_SYMBOL', violations: [{ fieldPath: 'symbol', ruleId: 'symbol' }] });
      const malformed = await signed(app.url, key, 'POST', '/v1/triggers/cancel-all', { includeAttached: 'yes' });
      expect(malformed.status).toBe(400);
      const errors = await graphql(app.url, owner, `mutation { cancelAllTriggers(symbol: "NOPE-USDC") { canceledCount } }`, {}, true);
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNKNOWN_SYMBOL' });
      expect((await as(app.url, key).trigger(stop)).status).toBe('ARMED');
    });
  });
});

describe('trigger expiry (expireAt)', () => {
  it('ends an unfired stop EXPIRED at its time by the sweep, across a restart, hold released and logged; shown on /v1 and GraphQL', async () => {
    await withApp(async (app, clock, restart) => {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { BTC: '1' });
      const key = await tradingKey(app.url, owner);
      const expireAt = new Date(clock.now().getTime() + 60_000).toISOString();
      const stop = await as(app.url, key).create(sellStop('29000', { expireAt }));
      const gql = (await graphql(app.url, owner, CREATE, { t: sellStop('28000', { expireAt: new Date(clock.now().getTime() + 120_000).toISOString() }) })).createTrigger;
      expect(gql).toMatchObject({ status: 'ARMED', expireAt: expect.stringMatching(/Z$/) });
      const lasting = await as(app.url, key).create(sellStop('27000'));
      // RFC 3339 as the API writes it: the fraction without trailing zeros (…28.750Z is …28.75Z).
      expect((await as(app.url, key).trigger(stop)).expireAt).toBe(expireAt.replace(/\.?0+Z$/, 'Z'));
      expect((await balancesOf(app.url, owner))['TRADING:BTC']?.held).toBe('0.3');

      // Signed requests carry the wall-clock time: past the skips, the session reads.
      const after = await restart();
      clock.skip(30_000);
      await after.app.services.orders.engine.expireDue();
      expect((await getTrigger(after.url, owner, stop)).status).toBe('ARMED');
      clock.skip(30_001);
      await after.app.services.orders.engine.expireDue();
      expect(await getTrigger(after.url, owner, stop)).toMatchObject({ status: 'EXPIRED', state: { held: '0' } });
      const events = (await api(after.url, 'GET', `/v1/triggers/${stop}/events`, undefined, owner.auth)).body.events as { eventType: string }[];
      expect(events.map((e) => e.eventType)).toContain('EXPIRED');
      expect((await graphql(after.url, owner, TRIGGER, { id: gql.triggerId })).trigger).toMatchObject({ status: 'ARMED' });
      clock.skip(60_000);
      await after.app.services.orders.engine.expireDue();
      expect((await graphql(after.url, owner, TRIGGER, { id: gql.triggerId })).trigger).toMatchObject({ status: 'EXPIRED', expireAt: expect.any(String), state: { held: '0' } });
      expect((await getTrigger(after.url, owner, lasting)).status).toBe('ARMED');
      expect((await getTrigger(after.url, owner, lasting)).expireAt).toBeUndefined();
      expect((await balancesOf(after.url, owner))['TRADING:BTC']).toEqual({ available: '0.9', held: '0.1' });
    });
  });

  it('a trade through a stop past its expiry, before the sweep ran, expires it instead of firing it', async () => {
    await withApp(async (app, clock) => {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { BTC: '1' });
      const key = await tradingKey(app.url, owner);
      const stop = await as(app.url, key).create(sellStop('29000', { expireAt: new Date(clock.now().getTime() + 5_000).toISOString() }));
      clock.skip(5_001);
      await printTrade(app.url, '28900');
      expect(await as(app.url, key).trigger(stop)).toMatchObject({ status: 'EXPIRED', state: { held: '0' } });
      expect(await as(app.url, key).events(stop)).not.toContain('FIRED');
    });
  });

  it('refuses an expiry in the past, too far ahead, malformed, or on a TWAP or ladder (signed /v1 and GraphQL)', async () => {
    await withApp(async (app, clock) => {
      const owner = await trader(app.url, { BTC: '1', USDC: '100000' });
      const key = await tradingKey(app.url, owner);
      const at = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();
      const cases: [Record<string, unknown>, string][] = [
        [sellStop('29000', { expireAt: at(-1_000) }), 'expiry-range'],
        [sellStop('29000', { expireAt: at(31 * 24 * 3600_000) }), 'expiry-range'],
        [sellStop('29000', { expireAt: 'tomorrow' }), 'rfc3339'],
        [sellStop('29000', { expireAt: '2030-01-01T00:00:00' }), 'rfc3339'],
        [{ symbol: 'BTC-USDC', qty: '1', expireAt: at(60_000), twap: { side: 'BUY', durationMs: 600_000, intervalMs: 1_000, maxAdverseBps: 100 } }, 'expiry-kind'],
        [{ symbol: 'BTC-USDC', qty: '0.3', expireAt: at(60_000), ladder: { side: 'BUY', levels: 3, minPrice: '29000', maxPrice: '29200' } }, 'expiry-kind'],
      ];
      for (const [trigger, ruleId] of cases) {
        const r = await signed(app.url, key, 'POST', '/v1/triggers', { trigger });
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body.violations).toEqual([expect.objectContaining({ fieldPath: 'trigger.expireAt', ruleId })]);
        const errors = await graphql(app.url, owner, CREATE, { t: trigger }, true);
        expect(errors?.[0]?.extensions?.violations).toEqual([expect.objectContaining({ fieldPath: 'trigger.expireAt', ruleId })]);
      }
      const wrongType = await signed(app.url, key, 'POST', '/v1/triggers', { trigger: sellStop('29000', { expireAt: 1_900_000_000 }) });
      expect(wrongType.status).toBe(400);
      expect((await balancesOf(app.url, owner))['TRADING:BTC']?.held).toBe('0');
      expect((await signed(app.url, key, 'GET', '/v1/triggers')).body.triggers).toEqual([]);
    });
  });
});

describe('the cap on live triggers per account', () => {
  it('refuses a standalone trigger past the cap with 400 TOO_MANY_TRIGGERS; legs do not count, an ended trigger frees its place, other accounts are not affected (signed /v1 and GraphQL)', async () => {
    await withApp(
      async (app, _clock, restart) => {
        await printTrade(app.url, '30000');
        const owner = await trader(app.url, { BTC: '1', USDC: '100000' });
        const key = await tradingKey(app.url, owner);
        const { create } = as(app.url, key);
        const first = await create(sellStop('29000'));
        await create(sellStop('28900'));
        await create({ symbol: 'BTC-USDC', qty: '0.2', ladder: { side: 'BUY', levels: 2, minPrice: '29000', maxPrice: '29100' } });
        const past = await signed(app.url, key, 'POST', '/v1/triggers', { trigger: sellStop('28800') });
        expect(past.status).toBe(400);
        expect(past.body).toMatchObject({ code: 'TOO_MANY_TRIGGERS', violations: [{ fieldPath: 'trigger', ruleId: 'max-live-triggers' }] });
        const errors = await graphql(app.url, owner, CREATE, { t: sellStop('28800') }, true);
        expect(errors?.[0]?.extensions).toMatchObject({ code: 'TOO_MANY_TRIGGERS' });
        // An order's attached legs are not standalone triggers: still accepted.
        const parent = await signed(app.url, key, 'POST', '/v1/orders', { order: gtc('BUY', '0.1', '29500', { attachedRisk: { stopLoss: { triggerPrice: '29000', child: { marketIoc: {} } } } }) });
        expect(parent.status, JSON.stringify(parent.body)).toBe(200);
        // Another account has its own count.
        const other = await trader(app.url, { BTC: '1' });
        expect((await signed(app.url, await tradingKey(app.url, other), 'POST', '/v1/triggers', { trigger: sellStop('29000') })).status).toBe(200);
        // The count is rebuilt after a restart, and an ended trigger frees its place.
        const after = await restart();
        expect((await signed(after.url, key, 'POST', '/v1/triggers', { trigger: sellStop('28800') })).body.code).toBe('TOO_MANY_TRIGGERS');
        expect((await signed(after.url, key, 'POST', '/v1/triggers/cancel', { triggerId: first })).status).toBe(200);
        expect((await signed(after.url, key, 'POST', '/v1/triggers', { trigger: sellStop('28800') })).status).toBe(200);
      },
      { MAX_LIVE_TRIGGERS_PER_ACCOUNT: '3' },
    );
  });
});

describe('a TWAP bounds the adverse move per slice', () => {
  it('measures each slice from the price as it starts: after the market rose, a slice buys above the first slice’s bound (signed /v1 and GraphQL)', async () => {
    await withApp(async (app, clock) => {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { USDC: '100000' });
      const key = await tradingKey(app.url, owner);
      const twap = await as(app.url, key).create({ symbol: 'BTC-USDC', qty: '0.2', twap: { side: 'BUY', durationMs: 120_000, intervalMs: 60_000, maxAdverseBps: 100 } });
      // The first slice: bounded by 30000 + 1% with nothing offered there.
      await app.app.services.orders.engine.runDueTwaps();
      expect((await getTrigger(app.url, owner, twap)).state.twap).toMatchObject({ sliceIndex: 1, slicePrice: '30300' });
      await printTrade(app.url, '31000');
      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.5', '31200'))).status).toBe(200);
      clock.skip(60_000);
      await app.app.services.orders.engine.runDueTwaps();
      // The second slice: bounded by 31000 + 1%, so it buys at 31200, above the first bound.
      const done = (await graphql(app.url, owner, `query T($id: String!) { trigger(triggerId: $id) { status state { cumFilledQty twap { slicePrice } } } }`, { id: twap })).trigger;
      expect(done).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.2', twap: { slicePrice: '31310' } } });
    });
  });
});

describe('ladder accounting', () => {
  it('a ladder whose levels fill on placement shows the fills and completes; a replaced level is followed through its replacement (signed /v1 and GraphQL)', async () => {
    await withApp(async (app) => {
      await printTrade(app.url, '30000');
      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.3', '29000'))).status).toBe(200);
      const owner = await trader(app.url, { USDC: '100000' });
      const key = await tradingKey(app.url, owner);
      // Not post-only, every level at or above the ask: all fill as they are placed.
      const filled = await as(app.url, key).create({ symbol: 'BTC-USDC', qty: '0.3', ladder: { side: 'BUY', levels: 3, minPrice: '29000', maxPrice: '29200', postOnly: false } });
      const LADDER = `query T($id: String!) { trigger(triggerId: $id) { status state { cumFilledQty ladder { levelsFilled levelsWithFills levels { orderId done filledQty } } } } }`;
      expect((await graphql(app.url, owner, LADDER, { id: filled })).trigger).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.3', ladder: { levelsFilled: 3, levelsWithFills: 3 } } });
      expect(await as(app.url, key).events(filled)).toContain('CHILD_FILLED');

      // A resting two-level ladder; one level is replaced, then both fill.
      const resting = await as(app.url, key).create({ symbol: 'BTC-USDC', qty: '0.2', ladder: { side: 'BUY', levels: 2, minPrice: '28000', maxPrice: '28100' } });
      const levels = (await as(app.url, key).trigger(resting)).state.ladder.levels as { orderId: string }[];
      const replaced = await signed(app.url, key, 'POST', '/v1/orders/replace', { orderId: levels[0]?.orderId, order: gtc('BUY', '0.1', '28050') });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      const after = (await as(app.url, key).trigger(resting)).state.ladder.levels as { orderId: string; done: boolean }[];
      expect(after.map((l) => l.orderId)).toEqual([replaced.body.orderId, levels[1]?.orderId]);
      expect((await signed(app.url, key, 'GET', `/v1/orders/${replaced.body.orderId}`)).body.order.origin).toMatchObject({ triggerId: resting });
      expect((await as(app.url, key).trigger(resting)).status).toBe('RUNNING');
      const taker = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, taker, ioc('SELL', '0.2', '28000'))).status).toBe(200);
      expect((await graphql(app.url, owner, LADDER, { id: resting })).trigger).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.2', ladder: { levelsFilled: 2 } } });
    });
  });
});

describe('order events on streams carry their origin', () => {
  it('a leg’s child on the GraphQL orderUpdates stream (SSE) names its trigger and the order it protects, as REST does', async () => {
    await withApp(async (app) => {
      await printTrade(app.url, '30000');
      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.1', '30000'))).status).toBe(200);
      const owner = await trader(app.url, { USDC: '100000' });
      const stream = await sseSubscription(app.url, `subscription { orderUpdates { orderId status origin { scope triggerId parentOrderId } } }`, owner.auth);
      expect(stream.state.status).toBe(200);
      try {
        const parent = await placeOrder(app.url, owner, gtc('BUY', '0.1', '30000', { attachedRisk: { stopLoss: { triggerPrice: '29000', child: { marketIoc: {} } } } }));
        expect(parent.status, JSON.stringify(parent.body)).toBe(200);
        // A bid for the stop's child, then a trade through the stop.
        const bidder = await trader(app.url, { USDC: '100000' });
        expect((await placeOrder(app.url, bidder, gtc('BUY', '0.1', '28500'))).status).toBe(200);
        await printTrade(app.url, '28900');
        const leg = parent.body.stopLossTriggerId as string;
        expect((await getTrigger(app.url, owner, leg)).status).toBe('COMPLETED');
        const events = async () => {
          for (let i = 0; i < 100 && !stream.state.text.includes(leg); i++) await new Promise((r) => setTimeout(r, 50));
          return stream.state.text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)).data.orderUpdates as { orderId: string; origin: Record<string, string> });
        };
        const child = (await events()).find((o) => o.origin.triggerId === leg);
        expect(child?.origin).toEqual({ scope: 'TRIGGER', triggerId: leg, parentOrderId: parent.body.orderId });
        const rest = (await api(app.url, 'GET', `/v1/orders/${child?.orderId}`, undefined, owner.auth)).body.order;
        expect(rest.origin).toMatchObject({ triggerId: leg, parentOrderId: parent.body.orderId });
        // The parent's own events stay DIRECT.
        expect((await events()).filter((o) => o.orderId === parent.body.orderId).every((o) => o.origin.scope === 'DIRECT' && o.origin.triggerId === '')).toBe(true);
      } finally {
        await stream.abort();
      }
    });
  });
});
