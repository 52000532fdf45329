import { builder } from '../../builder.ts';
import type { LadderLevelShape } from './shapes.ts';

export const LadderLevel = builder.objectRef<LadderLevelShape>('LadderLevel').implement({
  fields: (t) => ({ orderId: t.exposeString('orderId'), price: t.exposeString('price'), qty: t.exposeString('qty'), filledQty: t.exposeString('filledQty'), done: t.exposeBoolean('done') }),
});
