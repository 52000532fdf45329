import { queryFromInfo } from '@pothos/plugin-prisma';
import { presentTriggerEvent } from '../../../../presenters/triggerEvent.ts';
import type { GraphQLResolveInfo } from 'graphql';
import type { Prisma } from '../../../../generated/prisma/client.ts';
import type { CreateTriggerInput as CreateTriggerShape } from '../../../../services/trading/index.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import type { GraphQLContext } from '../../context.ts';
import { parseArgs } from '../../validate.ts';
import { orderPublicId } from '../../orderIds.ts';
import { relationsOf } from '../../relations.ts';
import { Order } from '../trading/order.ts';
import { orderOf } from '../trading/shapes.ts';
import { LadderBlock } from './ladderBlock.ts';
import type { BlockShape, LadderBlockShape, TrailingBlockShape, TriggerShape, TwapBlockShape } from './shapes.ts';
import { marketOf } from '../../markets.ts';
import { accountOf, parentOrderIdOf, TRIGGER_SELECT, triggerRow, triggerShape } from './rows.ts';
import { TrailingStopBlock } from './trailingStopBlock.ts';
import { deepDefined, TriggerInput } from './triggerInput.ts';
import { TriggerEvent } from './triggerEvent.ts';
import { TriggerState } from './triggerState.ts';
import { TriggerStop } from './triggerStop.ts';
import { TriggerStopBlock } from './triggerStopBlock.ts';
import { TwapBlock } from './twapBlock.ts';
import { nestedFirst } from '../../nestedFirst.ts';

/** The trigger fields that are strings of the /v1 shape as they are. */
type TextField = { [K in keyof TriggerShape]-?: TriggerShape[K] extends string ? K : never }[keyof TriggerShape];

const block = (tr: TriggerShape, key: 'stopLoss' | 'takeProfit') => ((tr as Partial<Record<typeof key, BlockShape>>)[key] as BlockShape | undefined) ?? null;

/** A trigger's events and child orders are read the first 20 unless `first` (at most 500) says otherwise: a TWAP may place 10,000 children. */
const NESTED_DEFAULT = 20;
const nested = nestedFirst(NESTED_DEFAULT, 500);

/**
 * A trigger is its Prisma row: a page of triggers reads the events and child orders its
 * selection asks for with the page, one statement per relation whatever the page size, and
 * the public ids of the orders they name (parents, events' children) in one more. Every
 * field resolves from the row's /v1 shape (presenters/trigger.ts), made once per row, so
 * the two cannot drift. A write answers the service's view (the engine's, ahead of the
 * projection) as the row's columns.
 */
export const Trigger = builder.prismaObject('Trigger', {
  description: 'A conditional order (spec 2.8): stop-loss or take-profit',
  select: TRIGGER_SELECT,
  fields: (t) => {
    const text = (field: TextField) => t.string({ resolve: (row, _args, ctx) => triggerShape(row, ctx)[field] });
    return {
      triggerId: text('triggerId'),
      clientTriggerId: text('clientTriggerId'),
      subaccountId: text('subaccountId'),
      symbol: text('symbol'),
      triggerType: text('triggerType'),
      status: text('status'),
      qty: text('qty'),
      feeAsset: text('feeAsset'),
      stpMode: text('stpMode'),
      parentOrderId: t.string({ description: 'The order an attached-risk trigger protects; empty for a standalone trigger', resolve: (row, _args, ctx) => parentOrderIdOf(row, ctx) }),
      cancelReason: text('cancelReason'),
      failureReason: text('failureReason'),
      createdAt: text('createdAt'),
      acceptedAt: t.string({ description: 'When it was accepted (its createdAt), as POST /v1/triggers answers', resolve: (row, _args, ctx) => triggerShape(row, ctx).createdAt }),
      acceptedAtTsNs: t.string({ description: 'The same instant in epoch nanoseconds', resolve: (row, _args, ctx) => triggerShape(row, ctx).acceptedAtTsNs }),
      updatedAt: text('updatedAt'),
      armedAt: text('armedAt'),
      completedAt: text('completedAt'),
      expireAt: t.string({ nullable: true, description: 'When it ends EXPIRED if not fired (RFC 3339); null without an expiry', resolve: (row, _args, ctx) => triggerShape(row, ctx).expireAt ?? null }),
      stop: t.field({ type: TriggerStop, resolve: (row, _args, ctx) => triggerShape(row, ctx).stop }),
      stopLoss: t.field({ type: TriggerStopBlock, nullable: true, resolve: (row, _args, ctx) => block(triggerShape(row, ctx), 'stopLoss') }),
      takeProfit: t.field({ type: TriggerStopBlock, nullable: true, resolve: (row, _args, ctx) => block(triggerShape(row, ctx), 'takeProfit') }),
      ladder: t.field({ type: LadderBlock, nullable: true, resolve: (row, _args, ctx) => ((triggerShape(row, ctx) as { ladder?: LadderBlockShape }).ladder ?? null) }),
      twap: t.field({ type: TwapBlock, nullable: true, resolve: (row, _args, ctx) => ((triggerShape(row, ctx) as { twap?: TwapBlockShape }).twap ?? null) }),
      trailingStop: t.field({ type: TrailingStopBlock, nullable: true, resolve: (row, _args, ctx) => ((triggerShape(row, ctx) as { trailingStop?: TrailingBlockShape }).trailingStop ?? null) }),
      state: t.field({ type: TriggerState, resolve: (row, _args, ctx) => triggerShape(row, ctx).state }),
      version: t.int({ resolve: (row, _args, ctx) => triggerShape(row, ctx).version }),
      events: t.field({
        type: [TriggerEvent],
        description: `Its events, newest first, as GET /v1/triggers/{triggerId}/events lists them: the first ${NESTED_DEFAULT} unless \`first\` says otherwise; \`triggerEvents\` pages them`,
        args: { first: t.arg.int({ description: nested.description }) },
        // Costed by the rows it can return, the default included (a list is otherwise costed as 10).
        complexity: (args) => ({ field: 1, multiplier: nested.cost(args) }),
        select: (args) => ({ events: { orderBy: [{ tsNs: 'desc' }, { id: 'desc' }], take: nested.take(args) } }),
        resolve: (row, _args, ctx) =>
          Promise.all(
            row.events.map(async (event) =>
              presentTriggerEvent({ event, triggerId: row.publicId, market: marketOf(ctx, row), account: accountOf(row), childOrderId: event.childOrderId === null ? null : await orderPublicId(ctx, event.childOrderId) }),
            ),
          ),
      }),
      childOrders: t.field({
        type: [Order],
        description: `The orders it placed (a stop's child, a TWAP's slices, a ladder's levels), first placed first: the first ${NESTED_DEFAULT} unless \`first\` says otherwise`,
        args: { first: t.arg.int({ description: nested.description }) },
        complexity: (args) => ({ field: 1, multiplier: nested.cost(args) }),
        select: (args) => ({ childOrders: { orderBy: [{ childSeq: 'asc' }, { id: 'asc' }], take: nested.take(args) } }),
        // Their origin is this trigger and the order it protects, known here without reading each child's.
        resolve: async (row, _args, ctx) => {
          const parent = await parentOrderIdOf(row, ctx);
          return row.childOrders.map((o) => orderOf({ ...o, originTriggerPublicId: row.publicId, originParentOrderPublicId: parent }, marketOf(ctx, o)));
        },
      }),
    };
  },
});

/** The relations (events, child orders) a field answering a Trigger selects, as the service's include. */
const relationsAsked = (ctx: GraphQLContext, info: GraphQLResolveInfo) => relationsOf<Prisma.TriggerInclude>(queryFromInfo({ context: ctx, info, typeName: 'Trigger' }));

/**
 * A write's answer: the service's view of the trigger as the write left it (the engine's,
 * ahead of the projection), with the relations its selection asks for read after the write
 * (getTrigger waits until the projection has it).
 */
async function writtenTrigger(ctx: GraphQLContext, info: GraphQLResolveInfo, written: { trigger: Parameters<typeof triggerRow>[0]; account: string }, subaccountId: string | null | undefined) {
  const row = triggerRow(written.trigger, written.account);
  const relations = relationsAsked(ctx, info);
  if (Object.keys(relations).length === 0) return row;
  const read = (await ctx.services.orders.getTrigger(callerOf(ctx), { triggerId: row.publicId, ...(subaccountId ? { subaccountId } : {}) }, relations)).trigger as Record<string, unknown>;
  return Object.assign(row, Object.fromEntries(Object.keys(relations).map((relation) => [relation, read[relation]])));
}

builder.queryField('trigger', (t) =>
  t.field({
    type: Trigger,
    args: { triggerId: t.arg.string({ required: true }), subaccountId: t.arg.string() },
    resolve: async (_root, { triggerId, ...args }, ctx, info) => {
      parseArgs(schemas.getTriggerParams, { triggerId }, 'params');
      parseArgs(schemas.getTriggerQuery, args, 'query');
      const r = await ctx.services.orders.getTrigger(callerOf(ctx), { triggerId, ...defined(args) }, relationsAsked(ctx, info));
      return triggerRow(r.trigger, r.account);
    },
  }),
);

builder.mutationFields((t) => ({
  createTrigger: t.field({
    type: Trigger,
    description: 'A standalone stop-loss or take-profit, funded and armed on acceptance (as POST /v1/triggers)',
    args: { subaccountId: t.arg.string(), trigger: t.arg({ type: TriggerInput, required: true }) },
    resolve: async (_root, args, ctx, info) => {
      const body = deepDefined(args) as CreateTriggerShape;
      parseArgs(schemas.createTriggerBody, body);
      const r = await ctx.services.orders.createTrigger(callerOf(ctx), body);
      const got = await ctx.services.orders.getTrigger(callerOf(ctx), { triggerId: r.trigger.publicId, ...(args.subaccountId ? { subaccountId: args.subaccountId } : {}) }, relationsAsked(ctx, info));
      return triggerRow(got.trigger, got.account);
    },
  }),
  cancelTrigger: t.field({
    type: Trigger,
    args: { triggerId: t.arg.string(), clientTriggerId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx, info) => {
      parseArgs(schemas.cancelTriggerBody, args);
      const r = await ctx.services.orders.cancelTrigger(callerOf(ctx), defined(args) ?? {});
      return writtenTrigger(ctx, info, r, args.subaccountId);
    },
  }),
  modifyTrigger: t.field({
    type: Trigger,
    description: 'Amends a live trigger: trigger price, limit-child price, quantity (not an attached leg\'s) or trailing distance; its hold follows (as POST /v1/triggers/modify)',
    args: {
      triggerId: t.arg.string(),
      clientTriggerId: t.arg.string(),
      subaccountId: t.arg.string(),
      triggerPrice: t.arg.string(),
      childLimitPrice: t.arg.string(),
      qty: t.arg.string(),
      trailingDistanceTicks: t.arg.string(),
      trailingDistanceBps: t.arg.int(),
    },
    resolve: async (_root, args, ctx, info) => {
      parseArgs(schemas.modifyTriggerBody, args);
      const r = await ctx.services.orders.modifyTrigger(callerOf(ctx), defined(args) ?? {});
      return writtenTrigger(ctx, info, r, args.subaccountId);
    },
  }),
  pauseTrigger: t.field({
    type: Trigger,
    description: 'Stops an armed trigger watching prices; its funds stay held',
    args: { triggerId: t.arg.string(), clientTriggerId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx, info) => {
      parseArgs(schemas.pauseTriggerBody, args);
      const r = await ctx.services.orders.pauseTrigger(callerOf(ctx), defined(args) ?? {});
      return writtenTrigger(ctx, info, r, args.subaccountId);
    },
  }),
  resumeTrigger: t.field({
    type: Trigger,
    description: 'Arms a paused trigger again',
    args: { triggerId: t.arg.string(), clientTriggerId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx, info) => {
      parseArgs(schemas.resumeTriggerBody, args);
      const r = await ctx.services.orders.resumeTrigger(callerOf(ctx), defined(args) ?? {});
      return writtenTrigger(ctx, info, r, args.subaccountId);
    },
  }),
}));
