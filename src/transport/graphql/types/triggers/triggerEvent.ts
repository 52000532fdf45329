import type { Market } from '../../../../services/markets.ts';
import { presentTriggerEvent } from '../../../../presenters/triggerEvent.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { guardedStream } from '../../guardedStream.ts';

export const TriggerEvent = builder.objectRef<ReturnType<typeof presentTriggerEvent> & { sequence?: bigint }>('TriggerEvent').implement({
  description: 'One transition of a trigger (spec 2.9)',
  fields: (t) => ({
    eventType: t.exposeString('eventType'),
    triggerId: t.exposeString('triggerId'),
    triggerType: t.exposeString('triggerType'),
    subaccountId: t.exposeString('subaccountId'),
    symbol: t.exposeString('symbol'),
    childOrderId: t.exposeString('childOrderId'),
    childSeq: t.exposeInt('childSeq'),
    firePx: t.string({ nullable: true, resolve: (e) => e.firePx ?? null }),
    cancelReason: t.exposeString('cancelReason'),
    failureReason: t.exposeString('failureReason'),
    tsNs: t.exposeString('tsNs'),
    sequence: t.field({ type: 'Int64', nullable: true, description: 'Unique and increasing in commit order: resume the triggerEvents subscription after it', resolve: (e) => e.sequence ?? null }),
  }),
});

builder.subscriptionField('triggerEvents', (t) =>
  t.field({
    type: TriggerEvent,
    description: 'Every event of the caller\'s triggers, after it is durable, in commit order',
    args: { subaccountId: t.arg.string(), after: t.arg({ type: 'Int64', description: 'Resume: first every event after this sequence, then the live stream' }) },
    subscribe: async (_root, args, ctx) =>
      guardedStream(ctx, callerOf(ctx), await ctx.services.orders.subscribe(callerOf(ctx), 'triggers', args.subaccountId ?? undefined, args.after ?? undefined)),
    resolve: (p, _args, ctx) => ({ ...presentTriggerEvent({ event: p.event, triggerId: p.event.triggerPublicId, market: ctx.services.markets.market(p.symbol) as Market, account: p.accountPublicId, childOrderId: p.event.childOrderPublicId }), sequence: p.sequence }),
  }),
);
