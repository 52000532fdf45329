import { builder } from '../../builder.ts';
import { LadderState } from './ladderState.ts';
import type { LadderStateShape, TrailingStateShape, TriggerShape, TwapStateShape } from './shapes.ts';
import { TrailingState } from './trailingStopState.ts';
import { TwapState } from './twapState.ts';

export const TriggerState = builder.objectRef<TriggerShape['state'] & { trailing?: TrailingStateShape; twap?: TwapStateShape; ladder?: LadderStateShape }>('TriggerState').implement({
  description: 'Runtime state: the price that fired it, what its children filled, how many it placed, what it holds',
  fields: (t) => ({
    firePx: t.exposeString('firePx'),
    cumFilledQty: t.exposeString('cumFilledQty'),
    childOrders: t.exposeInt('childOrders'),
    held: t.exposeString('held'),
    trailing: t.field({ type: TrailingState, nullable: true, resolve: (s) => s.trailing ?? null }),
    twap: t.field({ type: TwapState, nullable: true, resolve: (s) => s.twap ?? null }),
    ladder: t.field({ type: LadderState, nullable: true, resolve: (s) => s.ladder ?? null }),
  }),
});
