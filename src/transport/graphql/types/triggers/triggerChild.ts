import { builder } from '../../builder.ts';
import type { BlockShape } from './shapes.ts';

export const TriggerChild = builder.objectRef<BlockShape['child']>('TriggerChild').implement({
  description: 'The order a fired trigger places: a market IOC (slippage-bounded from the trigger price) or a limit GTC',
  fields: (t) => ({
    kind: t.string({ resolve: (c) => (c.limit ? 'LIMIT' : 'MARKET_IOC') }),
    limitPrice: t.string({ nullable: true, resolve: (c) => c.limit?.price ?? null }),
    postOnly: t.boolean({ resolve: (c) => c.limit?.postOnly === true }),
    maxSlippageTicks: t.int({ nullable: true, resolve: (c) => c.marketIoc?.maxSlippageTicks ?? null }),
    maxSlippageBps: t.int({ nullable: true, resolve: (c) => c.marketIoc?.maxSlippageBps ?? null }),
  }),
});
