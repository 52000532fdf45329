import { builder } from '../../builder.ts';
import { AttachedRiskPolicy } from './attachedRiskLegPolicy.ts';
import { AttachedRiskState } from './attachedRiskLegState.ts';
import type { RiskLegShape, RiskPolicyShape } from './shapes.ts';

export const AttachedRiskLeg = builder.objectRef<RiskLegShape>('AttachedRiskLeg').implement({
  fields: (t) => ({
    policy: t.field({ type: AttachedRiskPolicy, resolve: (l) => l.policy as RiskPolicyShape }),
    state: t.field({ type: AttachedRiskState, resolve: (l) => l.state as NonNullable<RiskLegShape['state']> }),
  }),
});
