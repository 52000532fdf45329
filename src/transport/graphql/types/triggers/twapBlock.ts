import { builder } from '../../builder.ts';
import type { TwapBlockShape } from './shapes.ts';

export const TwapBlock = builder.objectRef<TwapBlockShape>('TwapBlock').implement({
  fields: (t) => ({
    side: t.exposeString('side'),
    durationMs: t.exposeInt('durationMs'),
    intervalMs: t.exposeInt('intervalMs'),
    limitPrice: t.exposeString('limitPrice'),
    maxAdverseBps: t.int({ nullable: true, resolve: (b) => b.maxAdverseBps ?? null }),
    maxAdverseTicks: t.string({ nullable: true, resolve: (b) => b.maxAdverseTicks ?? null }),
  }),
});
