import { builder } from '../../builder.ts';
import type { TrailingStateShape } from './shapes.ts';

export const TrailingState = builder.objectRef<TrailingStateShape>('TrailingStopState').implement({
  fields: (t) => ({
    active: t.exposeBoolean('active'),
    peakPrice: t.string({ nullable: true, description: 'SELL trailing stops: the highest price since activation', resolve: (s) => s.peakPrice ?? null }),
    troughPrice: t.string({ nullable: true, description: 'BUY trailing stops: the lowest price since activation', resolve: (s) => s.troughPrice ?? null }),
    currentThreshold: t.exposeString('currentThreshold'),
  }),
});
