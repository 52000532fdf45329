import { presentTrigger } from '../../../../presenters/trigger.ts';
import type { CreateTriggerInput as CreateTriggerShape } from '../../../../services/trading/index.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { LadderBlock } from './ladderBlock.ts';
import type { BlockShape, LadderBlockShape, TrailingBlockShape, TriggerShape, TwapBlockShape } from './shapes.ts';
import { TrailingStopBlock } from './trailingStopBlock.ts';
import { deepDefined, TriggerInput } from './triggerInput.ts';
import { TriggerState } from './triggerState.ts';
import { TriggerStop } from './triggerStop.ts';
import { TriggerStopBlock } from './triggerStopBlock.ts';
import { TwapBlock } from './twapBlock.ts';

const block = (tr: TriggerShape, key: 'stopLoss' | 'takeProfit') => ((tr as Partial<Record<typeof key, BlockShape>>)[key] as BlockShape | undefined) ?? null;

export const Trigger = builder.objectRef<TriggerShape>('Trigger').implement({
  description: 'A conditional order (spec 2.8): stop-loss or take-profit',
  fields: (t) => ({
    triggerId: t.exposeString('triggerId'),
    clientTriggerId: t.exposeString('clientTriggerId'),
    subaccountId: t.exposeString('subaccountId'),
    symbol: t.exposeString('symbol'),
    triggerType: t.exposeString('triggerType'),
    status: t.exposeString('status'),
    qty: t.exposeString('qty'),
    feeAsset: t.exposeString('feeAsset'),
    stpMode: t.exposeString('stpMode'),
    parentOrderId: t.exposeString('parentOrderId'),
    cancelReason: t.exposeString('cancelReason'),
    failureReason: t.exposeString('failureReason'),
    createdAt: t.exposeString('createdAt'),
    acceptedAt: t.string({ description: 'When it was accepted (its createdAt), as POST /v1/triggers answers', resolve: (x) => x.createdAt }),
    acceptedAtTsNs: t.exposeString('acceptedAtTsNs', { description: 'The same instant in epoch nanoseconds' }),
    updatedAt: t.exposeString('updatedAt'),
    armedAt: t.exposeString('armedAt'),
    completedAt: t.exposeString('completedAt'),
    expireAt: t.string({ nullable: true, description: 'When it ends EXPIRED if not fired (RFC 3339); null without an expiry', resolve: (tr) => (tr as { expireAt?: string }).expireAt ?? null }),
    stop: t.field({ type: TriggerStop, resolve: (tr) => tr.stop }),
    stopLoss: t.field({ type: TriggerStopBlock, nullable: true, resolve: (tr) => block(tr, 'stopLoss') }),
    takeProfit: t.field({ type: TriggerStopBlock, nullable: true, resolve: (tr) => block(tr, 'takeProfit') }),
    ladder: t.field({ type: LadderBlock, nullable: true, resolve: (tr) => ((tr as { ladder?: LadderBlockShape }).ladder ?? null) }),
    twap: t.field({ type: TwapBlock, nullable: true, resolve: (tr) => ((tr as { twap?: TwapBlockShape }).twap ?? null) }),
    trailingStop: t.field({ type: TrailingStopBlock, nullable: true, resolve: (tr) => ((tr as { trailingStop?: TrailingBlockShape }).trailingStop ?? null) }),
    state: t.field({ type: TriggerState, resolve: (tr) => tr.state }),
    version: t.exposeInt('version'),
  }),
});

builder.queryField('trigger', (t) =>
  t.field({
    type: Trigger,
    args: { triggerId: t.arg.string({ required: true }), subaccountId: t.arg.string() },
    resolve: async (_root, { triggerId, ...query }, ctx) => {
      parseArgs(schemas.getTriggerParams, { triggerId }, 'params');
      parseArgs(schemas.getTriggerQuery, query, 'query');
      const r = await ctx.services.orders.getTrigger(callerOf(ctx), { triggerId, ...defined(query) });
      return presentTrigger({ trigger: r.trigger, market: r.market, account: r.account });
    },
  }),
);

builder.mutationFields((t) => ({
  createTrigger: t.field({
    type: Trigger,
    description: 'A standalone stop-loss or take-profit, funded and armed on acceptance (as POST /v1/triggers)',
    args: { subaccountId: t.arg.string(), trigger: t.arg({ type: TriggerInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const body = deepDefined(args) as CreateTriggerShape;
      parseArgs(schemas.createTriggerBody, body);
      const r = await ctx.services.orders.createTrigger(callerOf(ctx), body);
      const got = await ctx.services.orders.getTrigger(callerOf(ctx), { triggerId: r.trigger.publicId, ...(args.subaccountId ? { subaccountId: args.subaccountId } : {}) });
      return presentTrigger({ trigger: got.trigger, market: got.market, account: got.account });
    },
  }),
  cancelTrigger: t.field({
    type: Trigger,
    args: { triggerId: t.arg.string(), clientTriggerId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelTriggerBody, args);
      const r = await ctx.services.orders.cancelTrigger(callerOf(ctx), defined(args) ?? {});
      return presentTrigger({ trigger: r.trigger, market: r.market, account: r.account });
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
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.modifyTriggerBody, args);
      const r = await ctx.services.orders.modifyTrigger(callerOf(ctx), defined(args) ?? {});
      return presentTrigger({ trigger: r.trigger, market: r.market, account: r.account });
    },
  }),
  pauseTrigger: t.field({
    type: Trigger,
    description: 'Stops an armed trigger watching prices; its funds stay held',
    args: { triggerId: t.arg.string(), clientTriggerId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.pauseTriggerBody, args);
      const r = await ctx.services.orders.pauseTrigger(callerOf(ctx), defined(args) ?? {});
      return presentTrigger({ trigger: r.trigger, market: r.market, account: r.account });
    },
  }),
  resumeTrigger: t.field({
    type: Trigger,
    description: 'Arms a paused trigger again',
    args: { triggerId: t.arg.string(), clientTriggerId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.resumeTriggerBody, args);
      const r = await ctx.services.orders.resumeTrigger(callerOf(ctx), defined(args) ?? {});
      return presentTrigger({ trigger: r.trigger, market: r.market, account: r.account });
    },
  }),
}));
