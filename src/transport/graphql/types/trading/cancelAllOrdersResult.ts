import { toRfc3339 } from '../../../../presenters/scalars.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { Side } from './enums.ts';

/** What POST /v1/orders/cancel-all answers. */
const CancelAllOrdersResult = builder.objectRef<{ canceledCount: number; ts: string; tsNs: string }>('CancelAllOrdersResult').implement({
  fields: (t) => ({
    canceledCount: t.exposeInt('canceledCount'),
    ts: t.exposeString('ts', { description: 'When the cancels were accepted (RFC 3339)' }),
    tsNs: t.exposeString('tsNs', { description: 'The same instant in epoch nanoseconds' }),
  }),
});

builder.mutationField('cancelAllOrders', (t) =>
  t.field({
    type: CancelAllOrdersResult,
    description: 'Cancels every open order in scope (as POST /v1/orders/cancel-all)',
    args: { subaccountId: t.arg.string(), symbol: t.arg.string(), side: t.arg({ type: Side }) },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelAllOrdersBody, args);
      const r = await ctx.services.orders.cancelAllOrders(callerOf(ctx), defined(args) ?? {});
      return { canceledCount: r.canceledCount, ts: toRfc3339(r.ts), tsNs: r.tsNs.toString() };
    },
  }),
);
