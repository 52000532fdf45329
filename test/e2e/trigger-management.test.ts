import { describe, expect, it } from 'vitest';
import { api, signed } from '../helpers/auth.ts';
import { graphql, graphqlRaw, withApp } from '../helpers/triggerApp.ts';
import { balancesOf, gtc, placeOrder, printTrade, tradingKey, trader } from '../helpers/trading.ts';

/**
 * Managing conditional orders once they exist (issue 25, Deliver 3): amending a trigger
 * (POST /v1/triggers/modify, `modifyTrigger`) and replacing an order's attached risk
 * (POST /v1/orders/attached-risk, `setAttachedRisk`), over signed /v1 and GraphQL, with
 * the refusals a hostile or careless client meets, and a restart after an amendment.
 */

const TRIGGER = `query T($id: String!) { trigger(triggerId: $id) { status qty cancelReason stop { triggerPrice } state { cumFilledQty held } } }`;
const EVENTS = `query E($id: String!) { triggerEvents(triggerId: $id) { events { eventType childOrderId failureReason } } }`;

const MODIFY = `mutation M($id: String!, $qty: String, $triggerPrice: String, $bps: Int) { modifyTrigger(triggerId: $id, qty: $qty, triggerPrice: $triggerPrice, trailingDistanceBps: $bps) { status qty stop { triggerPrice } trailingStop { trailingDistanceBps } } }`;
const SET_RISK = `mutation S($id: String!, $risk: AttachedRiskInput!) { setAttachedRisk(orderId: $id, attachedRisk: $risk) { orderId stopLossTriggerId takeProfitTriggerId } }`;

describe('modify a trigger', () => {
  it('moves a stop\'s price and quantity with its hold in one job, refuses what creation refuses and what funds cannot pay, and keeps the amendment over a restart (signed /v1)', async () => {
    await withApp(async (app, _clock, restart) => {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { BTC: '1' });
      const key = await tradingKey(app.url, owner);
      const created = await signed(app.url, key, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.5', clientTriggerId: 'sl-1', stopLoss: { side: 'SELL', triggerPrice: '25000', child: { marketIoc: {} } } } });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = created.body.triggerId;
      const modify = (body: Record<string, unknown>, k = key) => signed(app.url, k, 'POST', '/v1/triggers/modify', body);

      const amended = await modify({ clientTriggerId: 'sl-1', triggerPrice: '24000', qty: '0.8' });
      expect(amended.status, JSON.stringify(amended.body)).toBe(200);
      expect(amended.body.trigger).toMatchObject({ status: 'ARMED', qty: '0.8', stop: { triggerPrice: '24000' } });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0.2', held: '0.8' });
      const events = await signed(app.url, key, 'GET', `/v1/triggers/${id}/events`);
      expect(events.body.events.map((e: { eventType: string }) => e.eventType)).toContain('AMENDED');

      // Refused whole, with creation's bounds: nothing changes.
      const refusals: [Record<string, unknown>, number, string][] = [
        [{ triggerId: id, qty: '0' }, 400, 'qty'],
        [{ triggerId: id, qty: '-1' }, 400, 'qty'],
        [{ triggerId: id, triggerPrice: '0' }, 400, 'triggerPrice'],
        [{ triggerId: id, triggerPrice: '99999999999999' }, 400, 'triggerPrice'],
        [{ triggerId: id, trailingDistanceBps: 100 }, 400, 'trailingDistanceBps'],
        [{ triggerId: id, childLimitPrice: '24000' }, 400, 'childLimitPrice'],
        [{ triggerId: id }, 400, 'trigger'],
        // Through the last price (30000): it would fire at once.
        [{ triggerId: id, triggerPrice: '31000' }, 400, 'triggerPrice'],
        // More than the account holds: 1.5 BTC with 1 in all.
        [{ triggerId: id, qty: '1.5' }, 400, 'qty'],
      ];
      for (const [body, status, field] of refusals) {
        const r = await modify(body);
        expect(r.status, JSON.stringify(body)).toBe(status);
        expect(r.body.violations?.[0]?.fieldPath, JSON.stringify(r.body)).toBe(field);
      }
      expect((await modify({ triggerId: id, qty: '1.5' })).body.code).toBe('INSUFFICIENT_BALANCE');
      expect((await modify({ triggerId: id, triggerPrice: '31000' })).body.code).toBe('TRIGGER_WOULD_FIRE_IMMEDIATELY');
      expect((await signed(app.url, key, 'GET', `/v1/triggers/${id}`)).body.trigger).toMatchObject({ qty: '0.8', stop: { triggerPrice: '24000' } });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0.2', held: '0.8' });

      // Another account's trigger is not found, whoever asks.
      const stranger = await trader(app.url, { BTC: '1' });
      const strangerKey = await tradingKey(app.url, stranger);
      expect((await modify({ triggerId: id, qty: '0.6' }, strangerKey)).status).toBe(404);

      // A smaller quantity releases what it no longer needs.
      expect((await modify({ triggerId: id, qty: '0.6' })).status).toBe(200);
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0.4', held: '0.6' });

      // Rebuilt from the tables after a restart: the amended price is the one watched.
      const next = await restart();
      expect((await signed(next.url, key, 'GET', `/v1/triggers/${id}`)).body.trigger).toMatchObject({ status: 'ARMED', qty: '0.6', stop: { triggerPrice: '24000' } });
      const bidder = await trader(next.url, { USDC: '100000' });
      expect((await placeOrder(next.url, bidder, gtc('BUY', '1', '23900'))).status).toBe(200);
      await printTrade(next.url, '24500');
      expect((await signed(next.url, key, 'GET', `/v1/triggers/${id}`)).body.trigger.status).toBe('ARMED');
      await printTrade(next.url, '24000');
      expect((await signed(next.url, key, 'GET', `/v1/triggers/${id}`)).body.trigger).toMatchObject({ status: 'COMPLETED', state: { cumFilledQty: '0.6', held: '0' } });

      // An ended trigger cannot be amended (404, as cancel, pause and resume answer).
      const ended = await signed(next.url, key, 'POST', '/v1/triggers/modify', { triggerId: id, qty: '0.5' });
      expect(ended.status).toBe(404);
      expect(ended.body.code).toBe('TRIGGER_NOT_FOUND');
    });
  });

  it('tightens a trailing stop from the peak it followed, refuses a leg\'s quantity and a ladder by field, over GraphQL', async () => {
    await withApp(async (app) => {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { BTC: '1', USDC: '100000' });
      const trail = await api(app.url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.5', trailingStop: { side: 'SELL', trailingDistanceBps: 200 } } }, owner.auth);
      expect(trail.status, JSON.stringify(trail.body)).toBe(200);
      expect((await graphql(app.url, owner, TRIGGER, { id: trail.body.triggerId })).trigger.stop.triggerPrice).toBe('29400');
      const amended = await graphql(app.url, owner, MODIFY, { id: trail.body.triggerId, bps: 100 });
      expect(amended.modifyTrigger).toMatchObject({ status: 'ARMED', stop: { triggerPrice: '29700' }, trailingStop: { trailingDistanceBps: 100 } });
      // A trailing stop's price follows the market: it is not set directly.
      const byPrice = await graphqlRaw(app.url, owner, MODIFY, { id: trail.body.triggerId, triggerPrice: '29000' });
      expect(byPrice.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');

      // A leg's quantity follows its parent's fills.
      const parent = await graphql(app.url, owner, `mutation($input: CreateOrderInput!) { createOrder(input: $input) { orderId stopLossTriggerId } }`, {
        input: gtc('BUY', '0.1', '29000', { attachedRisk: { stopLoss: { triggerPrice: '28000' } } }),
      });
      const leg = parent.createOrder.stopLossTriggerId;
      const legQty = await graphqlRaw(app.url, owner, MODIFY, { id: leg, qty: '0.2' });
      expect(JSON.stringify(legQty.errors)).toContain('qty');
      const legPrice = await graphql(app.url, owner, MODIFY, { id: leg, triggerPrice: '27000' });
      expect(legPrice.modifyTrigger).toMatchObject({ status: 'CREATED', qty: '0', stop: { triggerPrice: '27000' } });

      // A ladder's levels are already placed: amending it is refused by the field given.
      const ladder = await api(app.url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.2', ladder: { side: 'BUY', levels: 2, minPrice: '20000', maxPrice: '20100' } } }, owner.auth);
      expect(ladder.status, JSON.stringify(ladder.body)).toBe(200);
      const refused = await api(app.url, 'POST', '/v1/triggers/modify', { triggerId: ladder.body.triggerId, qty: '0.3' }, owner.auth);
      expect(refused.status).toBe(400);
      expect(refused.body.violations[0]).toMatchObject({ fieldPath: 'qty', ruleId: 'not-amendable' });
    });
  });
});

describe('set attached risk', () => {
  it('replaces an open order\'s legs, then protects the filled position of the ended order (signed /v1 and GraphQL), refusing strangers, unfilled cancels and lone oco', async () => {
    await withApp(async (app) => {
      await printTrade(app.url, '30000');
      const owner = await trader(app.url, { USDC: '100000' });
      const key = await tradingKey(app.url, owner);
      const trigger = async (id: string) => {
        const r = await signed(app.url, key, 'GET', `/v1/triggers/${id}`);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.trigger;
      };
      const parent = await signed(app.url, key, 'POST', '/v1/orders', { order: gtc('BUY', '0.1', '29000', { attachedRisk: { stopLoss: { triggerPrice: '28000', child: { marketIoc: {} } } } }) });
      expect(parent.status, JSON.stringify(parent.body)).toBe(200);
      const orderId = parent.body.orderId;

      const set = await signed(app.url, key, 'POST', '/v1/orders/attached-risk', { orderId, attachedRisk: { oco: true, stopLoss: { triggerPrice: '27000', child: { marketIoc: {} } }, takeProfit: { triggerPrice: '32000', child: { marketIoc: {} } } } });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      expect(set.body.stopLossTriggerId).not.toBe(parent.body.stopLossTriggerId);
      expect(await trigger(parent.body.stopLossTriggerId)).toMatchObject({ status: 'CANCELED', cancelReason: 'ATTACHED_RISK_REPLACED' });
      expect(await trigger(set.body.stopLossTriggerId)).toMatchObject({ status: 'CREATED', qty: '0', stop: { triggerPrice: '27000' } });
      expect(await trigger(set.body.takeProfitTriggerId)).toMatchObject({ status: 'CREATED', qty: '0' });

      // createOrder's rules: oco needs two exits; a stop-loss above the BUY's price is refused.
      const lone = await signed(app.url, key, 'POST', '/v1/orders/attached-risk', { orderId, attachedRisk: { oco: true, stopLoss: { triggerPrice: '27000', child: { marketIoc: {} } } } });
      expect(lone.status).toBe(400);
      expect(lone.body.violations[0].fieldPath).toBe('attachedRisk.oco');
      const wrongSide = await signed(app.url, key, 'POST', '/v1/orders/attached-risk', { orderId, attachedRisk: { stopLoss: { triggerPrice: '29500', child: { marketIoc: {} } } } });
      expect(wrongSide.body.violations?.[0]).toMatchObject({ fieldPath: 'attachedRisk.stopLoss.triggerPrice', ruleId: 'protective-side' });
      const stranger = await trader(app.url, { USDC: '1000' });
      expect((await api(app.url, 'POST', '/v1/orders/attached-risk', { orderId, attachedRisk: {} }, stranger.auth)).status).toBe(404);

      // The order fills: both new legs arm for it under one hold of 0.1 BTC.
      const seller = await trader(app.url, { BTC: '1' });
      expect((await placeOrder(app.url, seller, gtc('SELL', '0.1', '29000'))).status).toBe(200);
      expect(await trigger(set.body.stopLossTriggerId)).toMatchObject({ status: 'ARMED', qty: '0.1' });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.1' });

      // GraphQL, on the filled order (no longer open): its position gets a new stop, armed at once.
      // A take-profit at 29500 once the market trades at 30000 would sell at once.
      await printTrade(app.url, '30000');
      const through = await graphqlRaw(app.url, owner, SET_RISK, { id: orderId, risk: { takeProfit: { triggerPrice: '29500' } } });
      expect(JSON.stringify(through.errors)).toContain('it would fire at once');
      const again = await graphql(app.url, owner, SET_RISK, { id: orderId, risk: { stopLoss: { triggerPrice: '27500' } } });
      expect(again.setAttachedRisk).toMatchObject({ orderId, takeProfitTriggerId: '' });
      expect((await graphql(app.url, owner, TRIGGER, { id: again.setAttachedRisk.stopLossTriggerId })).trigger).toMatchObject({ status: 'ARMED', qty: '0.1', stop: { triggerPrice: '27500' } });
      expect(await trigger(set.body.takeProfitTriggerId)).toMatchObject({ status: 'CANCELED', cancelReason: 'ATTACHED_RISK_REPLACED' });
      expect((await balancesOf(app.url, owner))['TRADING:BTC']).toEqual({ available: '0', held: '0.1' });
      const events = await graphql(app.url, owner, EVENTS, { id: again.setAttachedRisk.stopLossTriggerId });
      expect(events.triggerEvents.events.map((e: { eventType: string }) => e.eventType)).toContain('ARMED');

      // An order canceled with nothing filled has no position to protect.
      const unfilled = await signed(app.url, key, 'POST', '/v1/orders', { order: gtc('BUY', '0.1', '28000') });
      expect((await signed(app.url, key, 'POST', '/v1/orders/cancel', { orderId: unfilled.body.orderId })).status).toBe(200);
      const none = await signed(app.url, key, 'POST', '/v1/orders/attached-risk', { orderId: unfilled.body.orderId, attachedRisk: { stopLoss: { triggerPrice: '27000', child: { marketIoc: {} } } } });
      expect(none.status).toBe(400);
      expect(none.body.violations[0]).toMatchObject({ fieldPath: 'orderId', ruleId: 'no-position' });
    });
  });
});
