import { z } from 'zod';
import { formatScaled } from '../domain/money.ts';
import { AttachedRiskLegStatus } from '../generated/prisma/enums.ts';
import type { RiskLegView } from '../services/trading/index.ts';

const price = z.string().describe('Decimal price (Q9)');
const zeroOrTime = z.string().describe('RFC 3339 timestamp; "0" until then');

const childSchema = z.union([
  z.strictObject({ limit: z.strictObject({ price: price.optional(), postOnly: z.boolean() }) }),
  z.strictObject({ marketIoc: z.strictObject({}) }),
]);

/** Spec 2.7: a stop-loss or take-profit leg as submitted. */
const pricePolicySchema = z.strictObject({ triggerPrice: price.optional(), child: childSchema });

/** Spec 2.7: a trailing-stop leg as submitted, distance in ticks or in bps. */
const trailingPolicySchema = z.strictObject({
  activationPrice: price.optional(),
  maxSlippageTicks: z.number().int().optional(),
  maxSlippageBps: z.number().int().optional(),
  trailingDistanceTicks: z.string().optional().describe('Price delta in Q9 ticks'),
  trailingDistanceBps: z.number().int().optional(),
});

const legStateSchema = z.strictObject({
  armedAt: zeroOrTime,
  childOrderId: z.string().describe('Empty until the leg fires'),
  status: z.enum(AttachedRiskLegStatus),
  terminalAt: zeroOrTime,
  triggerId: z.string(),
});

/** `policy` with includeAttachedRisk, `state` with includeAttachedRiskState. */
const legSchema = <P extends z.ZodType>(policy: P) => z.strictObject({ policy: policy.optional(), state: legStateSchema.optional() });

/** Spec 2.7 `attachedRisk`: present only when requested. */
export const attachedRiskSchema = z.strictObject({
  oco: z.boolean(),
  stopLoss: legSchema(pricePolicySchema).optional(),
  takeProfit: legSchema(pricePolicySchema).optional(),
  trailingStop: legSchema(trailingPolicySchema).optional(),
});

export type AttachedRisk = z.infer<typeof attachedRiskSchema>;

/** The order's legs as stored, each with the state of the trigger executing it; `include` says which parts were asked for. */
export function presentAttachedRisk(oco: boolean, legs: RiskLegView[], include: { policy: boolean; state: boolean }): AttachedRisk {
  const q9 = (p: bigint | null) => (p === null ? undefined : formatScaled(p, 9));
  const child = (l: RiskLegView) => (l.childKind === 'LIMIT' ? { limit: { price: q9(l.childLimitPrice), postOnly: l.childPostOnly } } : { marketIoc: {} });
  const state = (l: RiskLegView) => ({
    armedAt: l.armedAt?.toISOString() ?? '0',
    childOrderId: l.childOrderPublicId ?? '',
    status: l.status,
    terminalAt: l.terminalAt?.toISOString() ?? '0',
    triggerId: l.triggerPublicId ?? '',
  });
  // The newest of its kind: a leg replaced (POST /v1/orders/attached-risk) gives way to its successor.
  const newest = (kind: RiskLegView['kind']) => legs.findLast((x) => x.kind === kind);
  const leg = <P>(l: RiskLegView | undefined, policy: (l: RiskLegView) => P) =>
    l ? { ...(include.policy ? { policy: policy(l) } : {}), ...(include.state ? { state: state(l) } : {}) } : undefined;
  const stopLoss = leg(newest('STOP_LOSS'), (l) => ({ triggerPrice: q9(l.triggerPrice), child: child(l) }));
  const takeProfit = leg(newest('TAKE_PROFIT'), (l) => ({ triggerPrice: q9(l.triggerPrice), child: child(l) }));
  const trailingStop = leg(newest('TRAILING_STOP'), (l) => ({
    ...(l.activationPrice !== null ? { activationPrice: q9(l.activationPrice) } : {}),
    ...(l.maxSlippageTicks !== null ? { maxSlippageTicks: l.maxSlippageTicks } : {}),
    ...(l.maxSlippageBps !== null ? { maxSlippageBps: l.maxSlippageBps } : {}),
    ...(l.trailingDistanceTicks !== null ? { trailingDistanceTicks: l.trailingDistanceTicks.toString() } : {}),
    ...(l.trailingDistanceBps !== null ? { trailingDistanceBps: l.trailingDistanceBps } : {}),
  }));
  return { oco, ...(stopLoss ? { stopLoss } : {}), ...(takeProfit ? { takeProfit } : {}), ...(trailingStop ? { trailingStop } : {}) };
}

/** POST /v1/orders/attached-risk: the order and the triggers of its new legs (empty for a leg not given). */
export const attachedRiskSetSchema = z.strictObject({
  orderId: z.string(),
  stopLossTriggerId: z.string(),
  takeProfitTriggerId: z.string(),
  trailingStopTriggerId: z.string(),
});

export function presentAttachedRiskSet(r: { order: { publicId: string }; legTriggers: Partial<Record<'stopLoss' | 'takeProfit' | 'trailingStop', string>> }): z.infer<typeof attachedRiskSetSchema> {
  return {
    orderId: r.order.publicId,
    stopLossTriggerId: r.legTriggers.stopLoss ?? '',
    takeProfitTriggerId: r.legTriggers.takeProfit ?? '',
    trailingStopTriggerId: r.legTriggers.trailingStop ?? '',
  };
}
