import { presentTrigger } from '../../../../presenters/trigger.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import type { TriggerShape } from './shapes.ts';
import { Trigger } from './trigger.ts';

const TriggerPage = builder.objectRef<{ triggers: TriggerShape[]; nextPageToken: string }>('TriggerPage').implement({
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
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.listTriggersQuery, args, 'query');
      const r = await ctx.services.orders.listTriggers(callerOf(ctx), (defined(args) ?? {}) as never);
      return { triggers: r.triggers.map((x) => presentTrigger({ trigger: x.trigger, market: x.market, account: r.account })), nextPageToken: r.nextPageToken };
    },
  }),
);
