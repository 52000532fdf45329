// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { Side } from './enums.ts';

builder.mutationField('cancelAllOrders', (t) =>
  t.int({
    description: 'Cancels every open order in scope; answers how many',
    args: { subaccountId: t.arg.string(), symbol: t.arg.string(), side: t.arg({ type: Side }) },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelAllOrdersBody, args);
      return (await ctx.services.orders.cancelAllOrders(callerOf(ctx), defined(args) ?? {})).canceledCount;
    },
  }),
);
