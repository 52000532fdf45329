import { queryFromInfo } from '@pothos/plugin-prisma';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { relationsOf } from '../../relations.ts';
import { triggerRow, type TriggerRow } from './rows.ts';
import { Trigger } from './trigger.ts';

const TriggerPage = builder.objectRef<{ triggers: TriggerRow[]; nextPageToken: string }>('TriggerPage').implement({
  fields: (t) => ({ triggers: t.field({ type: [Trigger], resolve: (p) => p.triggers }), nextPageToken: t.exposeString('nextPageToken') }),
});

builder.queryField('triggers', (t) =>
  t.field({
    type: TriggerPage,
    description: 'The account\'s triggers, newest first (as GET /v1/triggers)',
    args: {
      subaccountId: t.arg.string(),
      status: t.arg.stringList(),
      symbol: t.arg.string(),
      symbolId: t.arg.int({ description: 'The pair by its engine id; 0 for every pair' }),
      triggerType: t.arg.string(),
      parentOrderId: t.arg.string({ description: 'Only the legs attached to this order' }),
      limit: t.arg.int(),
      pageToken: t.arg.string(),
    },
    resolve: async (_root, args, ctx, info) => {
      parseArgs(schemas.listTriggersQuery, args, 'query');
      // The relations the page's triggers select (events, child orders) are read with the page.
      const query = queryFromInfo({ context: ctx, info, typeName: 'Trigger', path: ['triggers'] });
      const r = await ctx.services.orders.listTriggers(callerOf(ctx), (defined(args) ?? {}) as never, relationsOf(query));
      return { triggers: r.triggers.map((x) => triggerRow(x.trigger, r.account)), nextPageToken: r.nextPageToken };
    },
  }),
);
