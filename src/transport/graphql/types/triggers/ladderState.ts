import { builder } from '../../builder.ts';
import { LadderLevel } from './ladderLevel.ts';
import type { LadderStateShape } from './shapes.ts';

export const LadderState = builder.objectRef<LadderStateShape>('LadderState').implement({
  fields: (t) => ({ levelsWithFills: t.exposeInt('levelsWithFills'), levelsFilled: t.exposeInt('levelsFilled', { description: 'Levels filled in full' }), levels: t.field({ type: [LadderLevel], resolve: (l) => l.levels }) }),
});
