import { describe, expect, it } from 'vitest';
import { signed } from '../helpers/auth.ts';
import { graphql, withApp } from '../helpers/triggerApp.ts';
import { balancesOf, gtc, ioc, placeOrder, printTrade, tradingKey, trader } from '../helpers/trading.ts';

/**
 * The paths a trigger takes besides a plain firing (issue 25): a replace that fills at once,
 * a bracket without `oco`, cancel-all and the dead-man switch, a child that finds no bid.
 * Over signed /v1 requests (an API key, as a bot trades) and over GraphQL.
 */

const TRIGGER = `query T($id: String!) { trigger(triggerId: $id) { status qty cancelReason failureReason state { cumFilledQty held } } }`;
const EVENTS = `query E($id: String!) { triggerEvents(triggerId: $id) { events { eventType childOrderId failureReason } } }`;

describe('a replace that fills at once', () => {
  it('arms the carried stop-loss for the filled quantity, and the stop fires when the price trades through it (signed /v1 and GraphQL)', async () => {
    await withApp(async (app) => {
      await printTrade(app.url, '30000');
      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.3', '30000'))).status).toBe(200);
      const owner = await trader(app.url, { USDC: '100000' });
      const key = await tradingKey(app.url, owner);
      const trigger = async (id: string) => (await signed(app.url, key, 'GET', `/v1/triggers/${id}`)).body.trigger;

      // Signed /v1: rests below the market with a stop, then is replaced at the ask.
      const parent = await signed(app.url, key, 'POST', '/v1/orders', { order: gtc('BUY', '0.1', '29000', { attachedRisk: { stopLoss: { triggerPrice: '28000', child: { marketIoc: {} } } } }) });
      expect(parent.status, JSON.stringify(parent.body)).toBe(200);
      const sl = parent.body.stopLossTriggerId;
      expect(await trigger(sl)).toMatchObject({ status: 'CREATED', qty: '0' });
      const replaced = await signed(app.url, key, 'POST', '/v1/orders/replace', { orderId: parent.body.orderId, order: gtc('BUY', '0.1', '30000') });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      expect((await signed(app.url, key, 'GET', `/v1/orders/${replaced.body.orderId}`)).body.order).toMatchObject({ status: 'FILLED', cumQty: '0.1' });
      expect(await trigger(sl)).toMatchObject({ status: 'ARMED', qty: '0.1', parentOrderId: replaced.body.orderId });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.1' });

      // GraphQL: the same, with a replace that fills part of it (0.05 of the 0.2 asks left).
      const parent2 = await graphql(app.url, owner, `mutation($input: CreateOrderInput!) { createOrder(input: $input) { orderId stopLossTriggerId } }`, {
        input: gtc('BUY', '0.3', '29000', { attachedRisk: { stopLoss: { triggerPrice: '28500' } } }),
      });
      const sl2 = parent2.createOrder.stopLossTriggerId;
      expect((await graphql(app.url, owner, TRIGGER, { id: sl2 })).trigger).toMatchObject({ status: 'CREATED', qty: '0' });
      const replaced2 = await graphql(app.url, owner, `mutation($id: String!, $input: CreateOrderInput!) { replaceOrder(orderId: $id, input: $input) { orderId } }`, {
        id: parent2.createOrder.orderId,
        input: gtc('BUY', '0.3', '30000'),
      });
      expect(replaced2.replaceOrder.orderId).not.toBe(parent2.createOrder.orderId);
      expect((await graphql(app.url, owner, TRIGGER, { id: sl2 })).trigger).toMatchObject({ status: 'ARMED', qty: '0.2' });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.3' });
      // The replacement's rest is no longer wanted: the stops stay for what was filled.
      expect((await signed(app.url, key, 'POST', '/v1/orders/cancel', { orderId: replaced2.replaceOrder.orderId })).status).toBe(200);

      // Trading through 28500 fires the second stop only (its child sells into the bid at
      // 28400, above the first stop); through 28000, the first too.
      const bidder = await trader(app.url, { USDC: '100000' });
      expect((await placeOrder(app.url, bidder, gtc('BUY', '0.2', '28400'))).status).toBe(200);
      await printTrade(app.url, '28500');
      expect((await graphql(app.url, owner, TRIGGER, { id: sl2 })).trigger).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.2', held: '0' } });
      expect(await trigger(sl)).toMatchObject({ status: 'ARMED' });
      expect((await placeOrder(app.url, bidder, gtc('BUY', '0.2', '27500'))).status).toBe(200);
      await printTrade(app.url, '28000');
      expect(await trigger(sl)).toMatchObject({ status: 'COMPLETED', state: { firePx: '28000', cumFilledQty: '0.1', held: '0' } });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toBeUndefined();
    });
  });
});

describe('a bracket without oco', () => {
  it('arms both legs for the filled quantity under one hold, across a restart, and the leg that fires cancels the other (signed /v1 and GraphQL)', async () => {
    await withApp(async (first, _clock, restart) => {
      let app = first;
      await printTrade(app.url, '30000');
      const seller = await trader(app.url, { BTC: '1' });
      const owner = await trader(app.url, { USDC: '100000' });
      const key = await tradingKey(app.url, owner);
      const trigger = async (id: string) => (await signed(app.url, key, 'GET', `/v1/triggers/${id}`)).body.trigger;

      const bracket = { stopLoss: { triggerPrice: '29000', child: { marketIoc: {} } }, takeProfit: { triggerPrice: '31000', child: { marketIoc: {} } } };
      const parent = await signed(app.url, key, 'POST', '/v1/orders', { order: gtc('BUY', '0.2', '30000', { attachedRisk: bracket }) });
      expect(parent.status, JSON.stringify(parent.body)).toBe(200);
      const { stopLossTriggerId: sl, takeProfitTriggerId: tp } = parent.body;
      expect((await placeOrder(app.url, seller, ioc('SELL', '0.1', '30000'))).status).toBe(200);
      expect(await trigger(sl)).toMatchObject({ status: 'ARMED', qty: '0.1' });
      expect(await trigger(tp)).toMatchObject({ status: 'ARMED', qty: '0.1' });
      // One position, one hold: the base bought, not twice it.
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.1' });
      // Rebuilt from the tables, the first leg still keeps the one hold, and grows it.
      app = await restart();
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.1' });
      expect((await placeOrder(app.url, seller, ioc('SELL', '0.1', '30000'))).status).toBe(200);
      expect(await trigger(tp)).toMatchObject({ status: 'ARMED', qty: '0.2' });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.2' });

      const bidder = await trader(app.url, { USDC: '100000' });
      expect((await placeOrder(app.url, bidder, gtc('BUY', '0.5', '30900'))).status).toBe(200);
      await printTrade(app.url, '31000');
      expect(await trigger(tp)).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.2' } });
      expect(await trigger(sl)).toMatchObject({ status: 'CANCELED', cancelReason: 'OCO_SIBLING_FIRED', state: { held: '0' } });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toBeUndefined();

      // GraphQL, a SELL parent: its BUY legs need quote at different bounds; the one hold
      // covers the larger (the stop-loss above), so neither fails, and canceling the leg
      // that kept it hands the hold to the other.
      const shorter = await trader(app.url, { BTC: '1', USDC: '10000' });
      const created = await graphql(app.url, shorter, `mutation($input: CreateOrderInput!) { createOrder(input: $input) { orderId stopLossTriggerId takeProfitTriggerId } }`, {
        input: gtc('SELL', '0.1', '30900', { attachedRisk: { stopLoss: { triggerPrice: '32000' }, takeProfit: { triggerPrice: '29000' } } }),
      });
      const { stopLossTriggerId: ssl, takeProfitTriggerId: stp } = created.createOrder;
      // The SELL rests at 30900 under the bidder's leftover 0.3 bid there: it fills at once.
      expect((await graphql(app.url, shorter, TRIGGER, { id: ssl })).trigger).toMatchObject({ status: 'ARMED', qty: '0.1' });
      const takeProfit = (await graphql(app.url, shorter, TRIGGER, { id: stp })).trigger;
      expect(takeProfit).toMatchObject({ status: 'ARMED', qty: '0.1', failureReason: '' });
      const held = (await balancesOf(app.url, shorter))['TRADING:USDC']?.held;
      // At least 0.1 × 32000 × 1.05 (the stop-loss child's bound), more than the take-profit's.
      expect(Number(held)).toBeGreaterThanOrEqual(3360);
      expect((await graphql(app.url, shorter, `mutation($id: String) { cancelTrigger(triggerId: $id) { status } }`, { id: ssl })).cancelTrigger.status).toBe('CANCELED');
      const after = (await balancesOf(app.url, shorter))['TRADING:USDC']?.held;
      expect(Number(after)).toBeGreaterThan(0);
      expect(Number(after)).toBeLessThan(Number(held));
      const kept = (await graphql(app.url, shorter, TRIGGER, { id: stp })).trigger;
      expect(kept.status).toBe('ARMED');
      expect(Number(kept.state.held)).toBe(Number(after));

      // Unfundable (the sale's proceeds are short of the stop-loss child's bound): both legs
      // fail together and say why; neither is left armed without funds.
      const broke = await trader(app.url, { BTC: '0.1' });
      const unfunded = await graphql(app.url, broke, `mutation($input: CreateOrderInput!) { createOrder(input: $input) { stopLossTriggerId takeProfitTriggerId } }`, {
        input: gtc('SELL', '0.1', '30900', { attachedRisk: { stopLoss: { triggerPrice: '32000' }, takeProfit: { triggerPrice: '29000' } } }),
      });
      for (const id of [unfunded.createOrder.stopLossTriggerId, unfunded.createOrder.takeProfitTriggerId]) {
        expect((await graphql(app.url, broke, TRIGGER, { id })).trigger).toMatchObject({ status: 'FAILED', failureReason: 'INSUFFICIENT_BALANCE', state: { held: '0' } });
      }
      expect((await balancesOf(app.url, broke))['TRADING:USDC']?.held).toBe('0');
    });
  });
});

describe('the kill switches', () => {
  it('a firing dead-man switch cancels the TWAP, the ladder, the stops and the legs in its scope; no slice runs after it', async () => {
    await withApp(async (app, clock) => {
      await printTrade(app.url, '30000');
      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.5', '30100'))).status).toBe(200);
      const owner = await trader(app.url, { USDC: '100000', BTC: '1' });
      const key = await tradingKey(app.url, owner);
      const trigger = async (id: string) => (await signed(app.url, key, 'GET', `/v1/triggers/${id}`)).body.trigger;
      const create = async (body: Record<string, unknown>) => {
        const r = await signed(app.url, key, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', ...body } });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.triggerId as string;
      };
      const twap = await create({ qty: '1', twap: { side: 'BUY', durationMs: 600_000, intervalMs: 1_000, maxAdverseBps: 100 } });
      const ladder = await create({ qty: '0.3', ladder: { side: 'BUY', levels: 3, minPrice: '29000', maxPrice: '29200' } });
      const stop = await create({ qty: '0.1', stopLoss: { side: 'SELL', triggerPrice: '29000', child: { marketIoc: {} } } });
      const otherSymbol = await signed(app.url, key, 'POST', '/v1/triggers', { trigger: { symbol: 'ETH-USDC', qty: '0.1', ladder: { side: 'BUY', levels: 1, minPrice: '100', maxPrice: '100' } } });
      expect(otherSymbol.status, JSON.stringify(otherSymbol.body)).toBe(200);

      const armed = await signed(app.url, key, 'POST', '/v1/orders/cancel-all-after', { requestId: 'dms', timeoutSec: 10, symbol: 'BTC-USDC' });
      expect(armed.status, JSON.stringify(armed.body)).toBe(200);
      clock.skip(10_001);
      await app.app.services.orders.fireDeadManSwitches();

      for (const id of [twap, ladder, stop]) expect(await trigger(id)).toMatchObject({ status: 'CANCELED', cancelReason: 'DEAD_MAN_SWITCH', state: { held: '0' } });
      const levels = (await trigger(ladder)).state.ladder.levels as { orderId: string }[];
      for (const level of levels) expect((await signed(app.url, key, 'GET', `/v1/orders/${level.orderId}`)).body.order).toMatchObject({ status: 'CANCELED' });
      // Out of its scope: the ETH ladder keeps running.
      expect(await trigger(otherSymbol.body.triggerId)).toMatchObject({ status: 'RUNNING' });
      const slices = (await signed(app.url, key, 'GET', `/v1/triggers/${twap}/events`)).body.events.length;
      clock.skip(5_000);
      expect(await app.app.services.orders.engine.runDueTwaps()).toBe(0);
      expect((await signed(app.url, key, 'GET', `/v1/triggers/${twap}/events`)).body.events).toHaveLength(slices);
      const balances = await balancesOf(app.url, owner);
      expect(balances['TRADING:BTC']).toEqual({ available: expect.any(String), held: '0' });
      // Only the ETH ladder's level holds anything: 0.1 × 100 plus its fee.
      expect(Number(balances['TRADING:USDC']?.held)).toBeLessThan(11);
    });
  });

  it('cancel-all cancels the live triggers in its scope, their side being their child order’s (signed /v1 and GraphQL)', async () => {
    await withApp(async (app) => {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { USDC: '100000', BTC: '1' });
      const key = await tradingKey(app.url, owner);
      const trigger = async (id: string) => (await signed(app.url, key, 'GET', `/v1/triggers/${id}`)).body.trigger;
      const create = async (body: Record<string, unknown>) => {
        const r = await signed(app.url, key, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', ...body } });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.triggerId as string;
      };
      const sellStop = await create({ qty: '0.1', stopLoss: { side: 'SELL', triggerPrice: '29000', child: { marketIoc: {} } } });
      const buyStop = await create({ qty: '0.1', stopLoss: { side: 'BUY', triggerPrice: '31000', child: { marketIoc: {} } } });
      const twap = await create({ qty: '1', twap: { side: 'BUY', durationMs: 600_000, intervalMs: 1_000, maxAdverseBps: 100 } });
      const parent = await signed(app.url, key, 'POST', '/v1/orders', { order: gtc('BUY', '0.1', '29500', { attachedRisk: { stopLoss: { triggerPrice: '29000', child: { marketIoc: {} } } } }) });

      // Side BUY: the BUY orders and the triggers whose child buys, not the SELL stop.
      const buys = await signed(app.url, key, 'POST', '/v1/orders/cancel-all', { symbol: 'BTC-USDC', side: 'BUY' });
      expect(buys.status, JSON.stringify(buys.body)).toBe(200);
      expect(buys.body.canceledCount).toBe(1);
      expect(await trigger(buyStop)).toMatchObject({ status: 'CANCELED', cancelReason: 'CANCEL_ALL' });
      expect(await trigger(twap)).toMatchObject({ status: 'CANCELED', cancelReason: 'CANCEL_ALL' });
      expect(await trigger(sellStop)).toMatchObject({ status: 'ARMED' });
      // The unfilled parent took its SELL leg with it.
      expect(await trigger(parent.body.stopLossTriggerId)).toMatchObject({ status: 'CANCELED', cancelReason: 'PARENT_CANCELED' });

      // GraphQL, no side: the SELL stop too; its base is free again.
      await graphql(app.url, owner, `mutation { cancelAllOrders(symbol: "BTC-USDC") { canceledCount } }`);
      expect((await graphql(app.url, owner, TRIGGER, { id: sellStop })).trigger).toMatchObject({ status: 'CANCELED', cancelReason: 'CANCEL_ALL' });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '1', held: '0' });
      expect((await balancesOf(app.url, owner))['TRADING:USDC']?.held).toBe('0');
    });
  });
});

describe('a stop whose child does not fill', () => {
  it('logs the child’s end and fails with the reason when nothing filled; completes with what a partial fill did (signed /v1 and GraphQL)', async () => {
    await withApp(async (app) => {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { BTC: '1' });
      const key = await tradingKey(app.url, owner);
      const create = async (triggerPrice: string) => {
        const r = await signed(app.url, key, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.1', stopLoss: { side: 'SELL', triggerPrice, child: { marketIoc: { maxSlippageBps: 100 } } } } });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.triggerId as string;
      };
      const events = async (id: string) => (await signed(app.url, key, 'GET', `/v1/triggers/${id}/events`)).body.events as { eventType: string; childOrderId: string; failureReason: string }[];

      // No bid at all: the market child is canceled with nothing filled.
      const none = await create('29000');
      await printTrade(app.url, '29000');
      expect((await signed(app.url, key, 'GET', `/v1/triggers/${none}`)).body.trigger).toMatchObject({ status: 'FAILED', failureReason: 'NO_LIQUIDITY', state: { cumFilledQty: '0', held: '0' } });
      const log = await events(none);
      expect(log.map((e) => e.eventType)).toEqual(['FAILED', 'CHILD_CANCELED', 'CHILD_PLACED', 'FIRED', 'ARMED', 'CREATED']);
      expect(log[1]).toMatchObject({ failureReason: 'NO_LIQUIDITY', childOrderId: log[2]?.childOrderId });
      expect((await signed(app.url, key, 'GET', `/v1/orders/${log[1]?.childOrderId}`)).body.order).toMatchObject({ status: 'CANCELED', cumQty: '0' });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '1', held: '0' });
      const viaGraphql = await graphql(app.url, owner, EVENTS, { id: none });
      expect(viaGraphql.triggerEvents.events.map((e: { eventType: string }) => e.eventType).slice(0, 2)).toEqual(['FAILED', 'CHILD_CANCELED']);
      expect((await graphql(app.url, owner, TRIGGER, { id: none })).trigger).toMatchObject({ status: 'FAILED', failureReason: 'NO_LIQUIDITY' });

      // Bids only beyond its slippage bound (1% under 28000): slippage, nothing filled.
      const bidder = await trader(app.url, { USDC: '100000' });
      expect((await placeOrder(app.url, bidder, gtc('BUY', '0.04', '27000'))).status).toBe(200);
      const far = await create('28000');
      await printTrade(app.url, '28000');
      expect((await signed(app.url, key, 'GET', `/v1/triggers/${far}`)).body.trigger).toMatchObject({ status: 'FAILED', failureReason: 'SLIPPAGE_EXCEEDED' });
      expect((await events(far))[1]).toMatchObject({ eventType: 'CHILD_CANCELED', failureReason: 'SLIPPAGE_EXCEEDED' });

      // The bid at 27000 is within 1% of 27200 but for part of it: what filled stays done,
      // the rest is logged as canceled.
      const part = await create('27200');
      await printTrade(app.url, '27200');
      expect((await signed(app.url, key, 'GET', `/v1/triggers/${part}`)).body.trigger).toMatchObject({ status: 'COMPLETED', failureReason: '', state: { cumFilledQty: '0.04' } });
      expect((await events(part)).map((e) => e.eventType)).toEqual(['COMPLETED', 'CHILD_CANCELED', 'CHILD_FILLED', 'CHILD_PLACED', 'FIRED', 'ARMED', 'CREATED']);
    });
  });
});
