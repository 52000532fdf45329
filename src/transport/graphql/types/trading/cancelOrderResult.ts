// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

builder.mutationField('cancelOrder', (t) =>
  t.field({
    type: 'String',
    description: 'Cancels an order; answers its id',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), subaccountId: t.arg.string(), symbol: t.arg.string({ description: 'Routing hint, checked: an order of another pair is ORDER_NOT_FOUND and stays open' }) },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelOrderBody, args);
      return (await ctx.services.orders.cancelOrder(callerOf(ctx), defined(args) ?? {})).orderId;
    },
  }),
);
