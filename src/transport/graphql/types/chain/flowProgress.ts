import { builder } from '../../builder.ts';
import type { FlowShape } from './rows.ts';

export const FlowProgress = builder.objectRef<FlowShape['currentProgress']>('FlowProgress').implement({
  fields: (t) => ({
    currentStepStartedAtUnixMs: t.exposeString('currentStepStartedAtUnixMs'),
    currentStepExpectedDurationMs: t.exposeString('currentStepExpectedDurationMs'),
    currentConfirmations: t.exposeInt('currentConfirmations'),
    requiredConfirmations: t.exposeInt('requiredConfirmations'),
    approveCount: t.exposeInt('approveCount'),
    rejectCount: t.exposeInt('rejectCount'),
    validatorCount: t.exposeInt('validatorCount'),
    requiredApprovals: t.exposeInt('requiredApprovals'),
    requiredRejections: t.exposeInt('requiredRejections'),
  }),
});
