import { builder } from '../../builder.ts';
import type { BlockShape } from './shapes.ts';
import { TriggerChild } from './triggerChild.ts';

export const TriggerStopBlock = builder.objectRef<BlockShape>('TriggerStopBlock').implement({
  fields: (t) => ({ side: t.exposeString('side'), triggerPrice: t.exposeString('triggerPrice'), child: t.field({ type: TriggerChild, resolve: (b) => b.child }) }),
});
