import { builder } from '../../builder.ts';
import type { RiskLegShape } from './shapes.ts';

export const AttachedRiskState = builder.objectRef<NonNullable<RiskLegShape['state']>>('AttachedRiskLegState').implement({
  description: 'What the trigger executing the leg has done, as /v1’s `includeAttachedRiskState`',
  fields: (t) => ({
    status: t.exposeString('status', { description: '`PENDING` until the parent fills, then `ARMED`, `TRIGGERED`, `COMPLETED`, `CANCELED` or `FAILED`' }),
    triggerId: t.exposeString('triggerId'),
    childOrderId: t.exposeString('childOrderId', { description: 'Empty until the leg fires' }),
    armedAt: t.exposeString('armedAt', { description: '`"0"` until armed' }),
    terminalAt: t.exposeString('terminalAt', { description: '`"0"` until terminal' }),
  }),
});
