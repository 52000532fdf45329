import { builder } from '../../builder.ts';
import type { FlowShape } from './rows.ts';

export const FlowTimelineItem = builder.objectRef<FlowShape['progressTimeline'][number]>('FlowTimelineItem').implement({
  fields: (t) => ({ sequence: t.exposeInt('sequence'), step: t.exposeString('step'), status: t.exposeString('status'), expectedDurationMs: t.exposeString('expectedDurationMs') }),
});
