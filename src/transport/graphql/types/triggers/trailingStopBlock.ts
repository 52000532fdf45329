import { builder } from '../../builder.ts';
import type { TrailingBlockShape } from './shapes.ts';

export const TrailingStopBlock = builder.objectRef<TrailingBlockShape>('TrailingStopBlock').implement({
  fields: (t) => ({
    side: t.exposeString('side'),
    activationPrice: t.exposeString('activationPrice'),
    trailingDistanceTicks: t.string({ nullable: true, resolve: (b) => b.trailingDistanceTicks ?? null }),
    trailingDistanceBps: t.int({ nullable: true, resolve: (b) => b.trailingDistanceBps ?? null }),
    maxSlippageTicks: t.int({ nullable: true, resolve: (b) => b.maxSlippageTicks ?? null }),
    maxSlippageBps: t.int({ nullable: true, resolve: (b) => b.maxSlippageBps ?? null }),
  }),
});
