import { builder } from '../../builder.ts';
import type { TriggerShape } from './shapes.ts';

export const TriggerStop = builder.objectRef<TriggerShape['stop']>('TriggerStop').implement({
  fields: (t) => ({ triggerDirection: t.exposeString('triggerDirection'), triggerPrice: t.exposeString('triggerPrice'), triggerPriceSource: t.exposeString('triggerPriceSource') }),
});
