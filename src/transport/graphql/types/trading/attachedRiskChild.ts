import { builder } from '../../builder.ts';
import type { RiskChildShape } from './shapes.ts';

const limitOf = (c: RiskChildShape) => ('limit' in c ? c.limit : undefined);

export const AttachedRiskChild = builder.objectRef<RiskChildShape>('AttachedRiskChild').implement({
  description: 'The order the leg places when it fires',
  fields: (t) => ({
    kind: t.string({ description: '`MARKET_IOC` or `LIMIT`', resolve: (c) => (limitOf(c) ? 'LIMIT' : 'MARKET_IOC') }),
    limitPrice: t.string({ nullable: true, resolve: (c) => limitOf(c)?.price ?? null }),
    postOnly: t.boolean({ resolve: (c) => limitOf(c)?.postOnly === true }),
    marketIoc: t.boolean({ description: 'A market IOC child: /v1’s `child.marketIoc`, an empty object, as a flag', resolve: (c) => 'marketIoc' in c }),
  }),
});
