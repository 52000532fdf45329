import { builder } from '../../builder.ts';
import type { RiskChildShape } from './shapes.ts';

export const AttachedRiskChild = builder.objectRef<RiskChildShape>('AttachedRiskChild').implement({
  description: 'The order the leg places when it fires',
  fields: (t) => ({
    kind: t.string({ description: '`MARKET_IOC` or `LIMIT`', resolve: (c) => (c.limit ? 'LIMIT' : 'MARKET_IOC') }),
    limitPrice: t.string({ nullable: true, resolve: (c) => c.limit?.price ?? null }),
    postOnly: t.boolean({ resolve: (c) => c.limit?.postOnly === true }),
  }),
});
