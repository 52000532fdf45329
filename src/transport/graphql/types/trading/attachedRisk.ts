import { builder } from '../../builder.ts';
import { AttachedRiskLeg } from './attachedRiskLeg.ts';
import type { AttachedRisk } from '../../../../presenters/attachedRisk.ts';

export const AttachedRiskView = builder.objectRef<AttachedRisk>('AttachedRisk').implement({
  description: 'The order’s attached-risk legs, as /v1/orders/open shows them with includeAttachedRisk and includeAttachedRiskState',
  fields: (t) => ({
    oco: t.exposeBoolean('oco'),
    stopLoss: t.field({ type: AttachedRiskLeg, nullable: true, resolve: (r) => r.stopLoss ?? null }),
    takeProfit: t.field({ type: AttachedRiskLeg, nullable: true, resolve: (r) => r.takeProfit ?? null }),
    trailingStop: t.field({ type: AttachedRiskLeg, nullable: true, resolve: (r) => r.trailingStop ?? null }),
  }),
});
