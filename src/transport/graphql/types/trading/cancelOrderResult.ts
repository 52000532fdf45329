import { toRfc3339 } from '../../../../presenters/scalars.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

/** What POST /v1/orders/cancel answers (spec 4.5). */
const CancelOrderResult = builder.objectRef<{ orderId: string; status: string; ts: string; tsNs: string }>('CancelOrderResult').implement({
  fields: (t) => ({
    orderId: t.exposeString('orderId'),
    status: t.exposeString('status', { description: '`ACCEPTED`: the cancel is durable; the order’s own status follows on orderUpdates' }),
    ts: t.exposeString('ts', { description: 'When the cancel was accepted (RFC 3339)' }),
    tsNs: t.exposeString('tsNs', { description: 'The same instant in epoch nanoseconds' }),
  }),
});

builder.mutationField('cancelOrder', (t) =>
  t.field({
    type: CancelOrderResult,
    description: 'Cancels an order (as POST /v1/orders/cancel)',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), subaccountId: t.arg.string(), symbol: t.arg.string({ description: 'Routing hint, checked: an order of another pair is ORDER_NOT_FOUND and stays open' }) },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelOrderBody, args);
      const r = await ctx.services.orders.cancelOrder(callerOf(ctx), defined(args) ?? {});
      return { orderId: r.orderId, status: r.status, ts: toRfc3339(r.ts), tsNs: r.tsNs.toString() };
    },
  }),
);
