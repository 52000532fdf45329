import { builder } from '../../builder.ts';
import type { TwapStateShape } from './shapes.ts';

export const TwapState = builder.objectRef<TwapStateShape>('TwapState').implement({
  fields: (t) => ({
    sliceIndex: t.exposeInt('sliceIndex', { description: 'The next slice, zero-based' }),
    plannedSlices: t.exposeInt('plannedSlices'),
    skippedSlices: t.exposeInt('skippedSlices'),
    startPrice: t.exposeString('startPrice'),
    slicePrice: t.exposeString('slicePrice'),
    nextSliceAtTsNs: t.exposeString('nextSliceAtTsNs'),
  }),
});
