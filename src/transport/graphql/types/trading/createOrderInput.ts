import type { CreateOrderInput as CreateOrderInputShape } from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { defined } from '../../connections.ts';
import { AttachedRisk, riskFromInput } from './attachedRiskInput.ts';
import { FeeAsset, Side, StpMode } from './enums.ts';

const LimitGtc = builder.inputType('LimitGtcInput', { fields: (t) => ({ price: t.string({ required: true }), postOnly: t.boolean() }) });
const LimitGtd = builder.inputType('LimitGtdInput', {
  fields: (t) => ({ price: t.string({ required: true }), expireAt: t.string({ required: true, description: 'RFC 3339 with an offset, exact to the nanosecond' }), postOnly: t.boolean() }),
});
const LimitIoc = builder.inputType('LimitIocInput', { fields: (t) => ({ price: t.string({ required: true }), maxQuoteDebit: t.string() }) });
const MarketIoc = builder.inputType('MarketIocInput', {
  fields: (t) => ({ clientRefPrice: t.string(), maxSlippageTicks: t.int(), maxSlippageBps: t.int(), maxQuoteDebit: t.string() }),
});

export const CreateOrderInput = builder.inputType('CreateOrderInput', {
  description: 'Exactly one of limitGtc, limitGtd, limitIoc and marketIoc',
  fields: (t) => ({
    subaccountId: t.string(),
    symbol: t.string({ required: true }),
    side: t.field({ type: Side, required: true }),
    baseQty: t.string({ required: true }),
    clientOrderId: t.string(),
    feeAsset: t.field({ type: FeeAsset }),
    selfTradePreventionMode: t.field({ type: StpMode }),
    limitGtc: t.field({ type: LimitGtc }),
    limitGtd: t.field({ type: LimitGtd }),
    limitIoc: t.field({ type: LimitIoc }),
    marketIoc: t.field({ type: MarketIoc }),
    attachedRisk: t.field({ type: AttachedRisk }),
  }),
});

/** The GraphQL order input as the order service takes it (the REST body's shape). */
export function orderFromInput(input: typeof CreateOrderInput.$inferInput): CreateOrderInputShape {
  const { subaccountId, limitGtc, limitGtd, limitIoc, marketIoc, attachedRisk, ...order } = input;
  const risk = attachedRisk ? riskFromInput(attachedRisk) : undefined;
  return {
    ...(subaccountId ? { subaccountId } : {}),
    order: {
      ...(defined(order) as Pick<CreateOrderInputShape['order'], 'symbol' | 'side' | 'baseQty'>),
      ...(limitGtc ? { limitGtc: defined(limitGtc) } : {}),
      ...(limitGtd ? { limitGtd: defined(limitGtd) } : {}),
      ...(limitIoc ? { limitIoc: defined(limitIoc) } : {}),
      ...(marketIoc ? { marketIoc: defined(marketIoc) } : {}),
      ...(risk ? { attachedRisk: risk } : {}),
    },
  };
}
