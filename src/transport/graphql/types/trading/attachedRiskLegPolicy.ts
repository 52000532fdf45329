import { builder } from '../../builder.ts';
import { AttachedRiskChild } from './attachedRiskChild.ts';
import type { RiskChildShape, RiskPolicyShape } from './shapes.ts';

/** A stop-loss or take-profit policy and a trailing one are told apart by their keys, as in /v1. */
const policyField = (p: RiskPolicyShape, k: string): unknown => (p as Record<string, unknown>)[k] ?? null;

export const AttachedRiskPolicy = builder.objectRef<RiskPolicyShape>('AttachedRiskLegPolicy').implement({
  description: 'The leg as submitted: `triggerPrice` and `child` for a stop-loss or take-profit, the trailing fields for a trailing stop',
  fields: (t) => ({
    triggerPrice: t.string({ nullable: true, resolve: (p) => policyField(p, 'triggerPrice') as string | null }),
    child: t.field({ type: AttachedRiskChild, nullable: true, resolve: (p) => policyField(p, 'child') as RiskChildShape | null }),
    activationPrice: t.string({ nullable: true, resolve: (p) => policyField(p, 'activationPrice') as string | null }),
    maxSlippageTicks: t.int({ nullable: true, resolve: (p) => policyField(p, 'maxSlippageTicks') as number | null }),
    maxSlippageBps: t.int({ nullable: true, resolve: (p) => policyField(p, 'maxSlippageBps') as number | null }),
    trailingDistanceTicks: t.string({ nullable: true, resolve: (p) => policyField(p, 'trailingDistanceTicks') as string | null }),
    trailingDistanceBps: t.int({ nullable: true, resolve: (p) => policyField(p, 'trailingDistanceBps') as number | null }),
  }),
});
