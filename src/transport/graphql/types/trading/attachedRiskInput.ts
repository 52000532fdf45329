import type { CreateOrderInput as CreateOrderInputShape } from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { defined } from '../../connections.ts';

const RiskChild = builder.inputType('RiskChildInput', {
  description: 'A market IOC child unless `limitPrice` is given',
  fields: (t) => ({ limitPrice: t.string(), postOnly: t.boolean() }),
});
const RiskLeg = builder.inputType('RiskLegInput', {
  fields: (t) => ({ triggerPrice: t.string({ required: true }), child: t.field({ type: RiskChild }) }),
});
const TrailingStop = builder.inputType('TrailingStopInput', {
  fields: (t) => ({
    activationPrice: t.string(),
    maxSlippageTicks: t.int(),
    maxSlippageBps: t.int(),
    trailingDistanceTicks: t.string(),
    trailingDistanceBps: t.int(),
  }),
});
export const AttachedRisk = builder.inputType('AttachedRiskInput', {
  description: 'Stored with the order; the trigger engine arms and executes the legs',
  fields: (t) => ({
    oco: t.boolean({ description: 'The legs form one one-cancels-others group; needs at least two of stopLoss, takeProfit and trailingStop' }),
    stopLoss: t.field({ type: RiskLeg }),
    takeProfit: t.field({ type: RiskLeg }),
    trailingStop: t.field({ type: TrailingStop }),
  }),
});

type RiskLegArg = { triggerPrice: string; child?: { limitPrice?: string | null; postOnly?: boolean | null } | null } | null | undefined;

function riskLeg(leg: RiskLegArg) {
  if (!leg) return undefined;
  const child = leg.child?.limitPrice
    ? { limit: { price: leg.child.limitPrice, ...(leg.child.postOnly ? { postOnly: true } : {}) } }
    : { marketIoc: {} };
  return { triggerPrice: leg.triggerPrice, child };
}

/** The GraphQL attached-risk input as the order service takes it (the REST block's shape). */
export function riskFromInput(attachedRisk: typeof AttachedRisk.$inferInput): NonNullable<CreateOrderInputShape['order']['attachedRisk']> {
  return {
    ...(attachedRisk.oco ? { oco: true } : {}),
    ...(attachedRisk.stopLoss ? { stopLoss: riskLeg(attachedRisk.stopLoss) } : {}),
    ...(attachedRisk.takeProfit ? { takeProfit: riskLeg(attachedRisk.takeProfit) } : {}),
    ...(attachedRisk.trailingStop ? { trailingStop: defined(attachedRisk.trailingStop) } : {}),
  } as NonNullable<CreateOrderInputShape['order']['attachedRisk']>;
}
