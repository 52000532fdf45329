import { builder } from '../../builder.ts';
import type { LadderBlockShape } from './shapes.ts';

export const LadderBlock = builder.objectRef<LadderBlockShape>('LadderBlock').implement({
  fields: (t) => ({
    side: t.exposeString('side'),
    levels: t.exposeInt('levels'),
    minPrice: t.exposeString('minPrice'),
    maxPrice: t.exposeString('maxPrice'),
    distribution: t.exposeString('distribution'),
    postOnly: t.exposeBoolean('postOnly'),
  }),
});
