import { presentTriggerEvent } from '../../../../presenters/triggerEvent.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { TriggerEvent } from './triggerEvent.ts';

const TriggerEventPage = builder.objectRef<{ events: ReturnType<typeof presentTriggerEvent>[]; nextPageToken: string }>('TriggerEventPage').implement({
  fields: (t) => ({ events: t.field({ type: [TriggerEvent], resolve: (p) => p.events }), nextPageToken: t.exposeString('nextPageToken') }),
});

builder.queryField('triggerEvents', (t) =>
  t.field({
    type: TriggerEventPage,
    description: 'A trigger\'s events, newest first (as GET /v1/triggers/{triggerId}/events)',
    args: { triggerId: t.arg.string({ required: true }), eventType: t.arg.string(), subaccountId: t.arg.string(), limit: t.arg.int(), pageToken: t.arg.string() },
    resolve: async (_root, { triggerId, ...query }, ctx) => {
      parseArgs(schemas.listTriggerEventsParams, { triggerId }, 'params');
      parseArgs(schemas.listTriggerEventsQuery, query, 'query');
      const r = await ctx.services.orders.listTriggerEvents(callerOf(ctx), { triggerId, ...defined(query) });
      return { events: r.events.map((e) => presentTriggerEvent({ event: e, triggerId: r.trigger.publicId, market: r.market, account: r.account, childOrderId: e.childOrder?.publicId ?? null })), nextPageToken: r.nextPageToken };
    },
  }),
);
