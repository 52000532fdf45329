import { describe, expect, it } from 'vitest';
import { attachedRiskSchema, presentAttachedRisk } from '../../src/presenters/attachedRisk.ts';
import { orderSchema, presentOrder } from '../../src/presenters/order.ts';
import { orderAcceptedSchema, presentOrderAccepted } from '../../src/presenters/orderAccepted.ts';
import { orderCanceledSchema, presentOrderCanceled } from '../../src/presenters/orderCancel.ts';
import type { Market } from '../../src/services/markets.ts';
import type { OrderLike, RiskLegView } from '../../src/services/trading/index.ts';

/**
 * What order entry's presenters build passes their schemas (which refuse a member they do
 * not name), and keeps the bytes and member order clients already read.
 */
const market = { symbolId: 1, symbol: 'BTC-USDC', baseQuantityScale: 8, quoteQuantityScale: 6 } as Market;
const at = new Date('2026-01-02T03:04:05.678Z');

const order: OrderLike = {
  id: 7n, publicId: 'o7', accountId: 1n, symbolId: 1, clientOrderId: null, side: 'BUY', orderType: 'LIMIT', tif: 'GTD', status: 'PARTIALLY_FILLED', isOpen: true, closeReason: null,
  price: 30_000_000_000_000n, origQty: 200_000_000n, cumQty: 50_000_000n, leavesQty: 150_000_000n, inheritedCumQty: 0n, cumNotionalQ9: 1_500_000_000_000_000_000_000n, inheritedNotionalQ9: 0n,
  feeAsset: 'QUOTE', postOnly: true, stpMode: 'EXPIRE_MAKER', expireAt: at, expireAtTsNs: 1_767_323_045_678_000_001n, createdAt: at, acceptedAtTsNs: 1n, terminalAt: null,
  lineageId: 'o7', generation: 1, replacesOrderId: null, marketClientRefPrice: null, marketMaxSlippageBps: null, marketMaxSlippageTicks: null, submittedMaxQuoteDebit: null,
  version: 2, prioritySeq: 1n, oco: false, originScope: 'DIRECT', originTriggerId: null, originTriggerType: null, childSeq: 0,
};

describe('order entry presenters', () => {
  it('writes the create answer as before: clientOrderId and the debit cap only when given, in their places', () => {
    const accepted = { orderId: 'o7', clientOrderId: 'c1', acceptedAt: at, acceptedAtTsNs: 1_767_323_045_678_000_001n, resolvedBaseQty: 50_000_000n, submittedMaxQuoteDebit: 1_500_000n, market, legTriggers: { stopLoss: 't1' } };
    const body = presentOrderAccepted(accepted);
    expect(orderAcceptedSchema.parse(body)).toEqual(body);
    expect(JSON.stringify(body)).toBe(
      '{"orderId":"o7","clientOrderId":"c1","acceptedAt":"2026-01-02T03:04:05.678Z","acceptedAtTsNs":"1767323045678000001","resolvedBaseQty":"0.5","submittedMaxQuoteDebit":"1.5","stopLossTriggerId":"t1","takeProfitTriggerId":"","trailingStopTriggerId":""}',
    );
    const bare = presentOrderAccepted({ ...accepted, clientOrderId: '', submittedMaxQuoteDebit: undefined, legTriggers: {} });
    expect(orderAcceptedSchema.parse(bare)).toEqual(bare);
    expect(Object.keys(bare)).toEqual(['orderId', 'acceptedAt', 'acceptedAtTsNs', 'resolvedBaseQty', 'stopLossTriggerId', 'takeProfitTriggerId', 'trailingStopTriggerId']);
  });

  it('writes a cancel as spec 4.5 shows it', () => {
    const body = presentOrderCanceled({ orderId: 'o7', status: 'ACCEPTED', ts: at, tsNs: 5n });
    expect(orderCanceledSchema.parse(body)).toEqual(body);
    expect(JSON.stringify(body)).toBe('{"orderId":"o7","status":"ACCEPTED","ts":"2026-01-02T03:04:05.678Z","tsNs":"5"}');
  });

  it('presents an order in the pair’s scales, the expiry of a GTD only, and marketMaxSlippageTicks always', () => {
    const body = presentOrder(order, market);
    expect(orderSchema.parse(body)).toEqual(body);
    expect(body).toMatchObject({ price: '30000', origQty: '2', cumQty: '0.5', avgPx: '30000', expireAt: '2026-01-02T03:04:05.678000001Z', batchRequestId: '0', marketMaxSlippageTicks: 0 });
    expect(body).not.toHaveProperty('marketClientRefPrice');
    const market_ = presentOrder({ ...order, orderType: 'MARKET', tif: 'IOC', expireAtTsNs: null, marketClientRefPrice: 31_000_000_000_000n, marketMaxSlippageTicks: 500, submittedMaxQuoteDebit: 2_000_000n }, market);
    expect(orderSchema.parse(market_)).toEqual(market_);
    expect(market_).toMatchObject({ marketClientRefPrice: '31000', marketMaxSlippageTicks: 500, submittedMaxQuoteDebit: '2' });
    expect(market_).not.toHaveProperty('expireAt');
  });

  it('presents the legs asked for: a replaced leg gives way to its successor', () => {
    const leg = (kind: RiskLegView['kind'], over: Partial<RiskLegView>): RiskLegView =>
      ({ kind, childKind: 'MARKET_IOC', childLimitPrice: null, childPostOnly: false, triggerPrice: null, activationPrice: null, maxSlippageTicks: null, maxSlippageBps: null, trailingDistanceTicks: null, trailingDistanceBps: null, status: 'ARMED', armedAt: at, terminalAt: null, triggerPublicId: 't', childOrderPublicId: '', ...over }) as RiskLegView;
    const legs = [leg('STOP_LOSS', { triggerPrice: 29_000_000_000_000n, status: 'CANCELED' }), leg('STOP_LOSS', { triggerPrice: 28_000_000_000_000n, triggerPublicId: 't2' }), leg('TRAILING_STOP', { trailingDistanceTicks: 5_000_000_000n, maxSlippageTicks: 3 })];
    const risk = presentAttachedRisk(true, legs, { policy: true, state: true });
    expect(attachedRiskSchema.parse(risk)).toEqual(risk);
    expect(risk.stopLoss).toEqual({ policy: { triggerPrice: '28000', child: { marketIoc: {} } }, state: { armedAt: at.toISOString(), childOrderId: '', status: 'ARMED', terminalAt: '0', triggerId: 't2' } });
    expect(risk.trailingStop?.policy).toEqual({ maxSlippageTicks: 3, trailingDistanceTicks: '5000000000' });
    const policyOnly = presentAttachedRisk(false, legs, { policy: true, state: false });
    expect(policyOnly.stopLoss).not.toHaveProperty('state');
    const body = presentOrder(order, market, risk);
    expect(orderSchema.parse(body).attachedRisk).toEqual(risk);
  });
});
