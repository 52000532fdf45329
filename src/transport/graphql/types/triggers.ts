import type { Market } from '../../../services/markets.ts';
import {
  type CreateTriggerInput as CreateTriggerShape,
  triggerEventView,
  triggerView,
} from '../../../services/trading/index.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../services/trading/index.ts';
import { guardedStream } from '../guardedStream.ts';
import { builder } from '../builder.ts';
import { callerOf, defined } from '../connections.ts';
import { parseArgs } from '../validate.ts';
import { FeeAsset, Side, StpMode } from './trading.ts';

type TriggerShape = ReturnType<typeof triggerView>;
type BlockShape = { side: string; triggerPrice: string; child: { limit?: { price: string; postOnly: boolean }; marketIoc?: { maxSlippageTicks?: number; maxSlippageBps?: number } } };

const TriggerChild = builder.objectRef<BlockShape['child']>('TriggerChild').implement({
  description: 'The order a fired trigger places: a market IOC (slippage-bounded from the trigger price) or a limit GTC',
  fields: (t) => ({
    kind: t.string({ resolve: (c) => (c.limit ? 'LIMIT' : 'MARKET_IOC') }),
    limitPrice: t.string({ nullable: true, resolve: (c) => c.limit?.price ?? null }),
    postOnly: t.boolean({ resolve: (c) => c.limit?.postOnly === true }),
    maxSlippageTicks: t.int({ nullable: true, resolve: (c) => c.marketIoc?.maxSlippageTicks ?? null }),
    maxSlippageBps: t.int({ nullable: true, resolve: (c) => c.marketIoc?.maxSlippageBps ?? null }),
  }),
});
const TriggerStopBlock = builder.objectRef<BlockShape>('TriggerStopBlock').implement({
  fields: (t) => ({ side: t.exposeString('side'), triggerPrice: t.exposeString('triggerPrice'), child: t.field({ type: TriggerChild, resolve: (b) => b.child }) }),
});
const TriggerStop = builder.objectRef<TriggerShape['stop']>('TriggerStop').implement({
  fields: (t) => ({ triggerDirection: t.exposeString('triggerDirection'), triggerPrice: t.exposeString('triggerPrice'), triggerPriceSource: t.exposeString('triggerPriceSource') }),
});
type TrailingStateShape = { active: boolean; peakPrice?: string; troughPrice?: string; currentThreshold: string };
const TrailingState = builder.objectRef<TrailingStateShape>('TrailingStopState').implement({
  fields: (t) => ({
    active: t.exposeBoolean('active'),
    peakPrice: t.string({ nullable: true, description: 'SELL trailing stops: the highest price since activation', resolve: (s) => s.peakPrice ?? null }),
    troughPrice: t.string({ nullable: true, description: 'BUY trailing stops: the lowest price since activation', resolve: (s) => s.troughPrice ?? null }),
    currentThreshold: t.exposeString('currentThreshold'),
  }),
});
type TwapStateShape = { sliceIndex: number; plannedSlices: number; skippedSlices: number; startPrice: string; slicePrice: string; nextSliceAtTsNs: string };
const TwapState = builder.objectRef<TwapStateShape>('TwapState').implement({
  fields: (t) => ({
    sliceIndex: t.exposeInt('sliceIndex', { description: 'The next slice, zero-based' }),
    plannedSlices: t.exposeInt('plannedSlices'),
    skippedSlices: t.exposeInt('skippedSlices'),
    startPrice: t.exposeString('startPrice'),
    slicePrice: t.exposeString('slicePrice'),
    nextSliceAtTsNs: t.exposeString('nextSliceAtTsNs'),
  }),
});
type TwapBlockShape = { side: string; durationMs: number; intervalMs: number; limitPrice: string; maxAdverseBps?: number; maxAdverseTicks?: string };
const TwapBlock = builder.objectRef<TwapBlockShape>('TwapBlock').implement({
  fields: (t) => ({
    side: t.exposeString('side'),
    durationMs: t.exposeInt('durationMs'),
    intervalMs: t.exposeInt('intervalMs'),
    limitPrice: t.exposeString('limitPrice'),
    maxAdverseBps: t.int({ nullable: true, resolve: (b) => b.maxAdverseBps ?? null }),
    maxAdverseTicks: t.string({ nullable: true, resolve: (b) => b.maxAdverseTicks ?? null }),
  }),
});
type LadderLevelShape = { orderId: string; price: string; qty: string; filledQty: string; done: boolean };
const LadderLevel = builder.objectRef<LadderLevelShape>('LadderLevel').implement({
  fields: (t) => ({ orderId: t.exposeString('orderId'), price: t.exposeString('price'), qty: t.exposeString('qty'), filledQty: t.exposeString('filledQty'), done: t.exposeBoolean('done') }),
});
type LadderStateShape = { levelsWithFills: number; levelsFilled: number; levels: LadderLevelShape[] };
const LadderState = builder.objectRef<LadderStateShape>('LadderState').implement({
  fields: (t) => ({ levelsWithFills: t.exposeInt('levelsWithFills'), levelsFilled: t.exposeInt('levelsFilled', { description: 'Levels filled in full' }), levels: t.field({ type: [LadderLevel], resolve: (l) => l.levels }) }),
});
type LadderBlockShape = { side: string; levels: number; minPrice: string; maxPrice: string; distribution: string; postOnly: boolean };
const LadderBlock = builder.objectRef<LadderBlockShape>('LadderBlock').implement({
  fields: (t) => ({
    side: t.exposeString('side'),
    levels: t.exposeInt('levels'),
    minPrice: t.exposeString('minPrice'),
    maxPrice: t.exposeString('maxPrice'),
    distribution: t.exposeString('distribution'),
    postOnly: t.exposeBoolean('postOnly'),
  }),
});
const TriggerState = builder.objectRef<TriggerShape['state'] & { trailing?: TrailingStateShape; twap?: TwapStateShape; ladder?: LadderStateShape }>('TriggerState').implement({
  description: 'Runtime state: the price that fired it, what its children filled, how many it placed, what it holds',
  fields: (t) => ({
    firePx: t.exposeString('firePx'),
    cumFilledQty: t.exposeString('cumFilledQty'),
    childOrders: t.exposeInt('childOrders'),
    held: t.exposeString('held'),
    trailing: t.field({ type: TrailingState, nullable: true, resolve: (s) => s.trailing ?? null }),
    twap: t.field({ type: TwapState, nullable: true, resolve: (s) => s.twap ?? null }),
    ladder: t.field({ type: LadderState, nullable: true, resolve: (s) => s.ladder ?? null }),
  }),
});
type TrailingBlockShape = { side: string; activationPrice: string; trailingDistanceTicks?: string; trailingDistanceBps?: number; maxSlippageTicks?: number; maxSlippageBps?: number };
const TrailingStopBlock = builder.objectRef<TrailingBlockShape>('TrailingStopBlock').implement({
  fields: (t) => ({
    side: t.exposeString('side'),
    activationPrice: t.exposeString('activationPrice'),
    trailingDistanceTicks: t.string({ nullable: true, resolve: (b) => b.trailingDistanceTicks ?? null }),
    trailingDistanceBps: t.int({ nullable: true, resolve: (b) => b.trailingDistanceBps ?? null }),
    maxSlippageTicks: t.int({ nullable: true, resolve: (b) => b.maxSlippageTicks ?? null }),
    maxSlippageBps: t.int({ nullable: true, resolve: (b) => b.maxSlippageBps ?? null }),
  }),
});
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

const TriggerEvent = builder.objectRef<ReturnType<typeof triggerEventView> & { sequence?: bigint }>('TriggerEvent').implement({
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

const TriggerPage = builder.objectRef<{ triggers: TriggerShape[]; nextPageToken: string }>('TriggerPage').implement({
  fields: (t) => ({ triggers: t.field({ type: [Trigger], resolve: (p) => p.triggers }), nextPageToken: t.exposeString('nextPageToken') }),
});
const TriggerEventPage = builder.objectRef<{ events: ReturnType<typeof triggerEventView>[]; nextPageToken: string }>('TriggerEventPage').implement({
  fields: (t) => ({ events: t.field({ type: [TriggerEvent], resolve: (p) => p.events }), nextPageToken: t.exposeString('nextPageToken') }),
});

const CanceledTriggers = builder.objectRef<{ canceledTriggerIds: string[]; canceledCount: number; tsNs: string }>('CanceledTriggers').implement({
  fields: (t) => ({ canceledTriggerIds: t.exposeStringList('canceledTriggerIds'), canceledCount: t.exposeInt('canceledCount'), tsNs: t.exposeString('tsNs') }),
});

const TriggerChildInput = builder.inputType('TriggerChildInput', {
  description: 'Exactly one of marketIoc and limit',
  fields: (t) => ({
    marketIoc: t.field({ type: builder.inputType('TriggerMarketIocInput', { fields: (f) => ({ maxSlippageTicks: f.int(), maxSlippageBps: f.int() }) }) }),
    limit: t.field({ type: builder.inputType('TriggerLimitInput', { fields: (f) => ({ price: f.string({ required: true }), postOnly: f.boolean() }) }) }),
  }),
});
const StopBlockInput = builder.inputType('TriggerStopBlockInput', {
  fields: (t) => ({ side: t.field({ type: Side, required: true }), triggerPrice: t.string({ required: true }), child: t.field({ type: TriggerChildInput, required: true }) }),
});
const TriggerInput = builder.inputType('TriggerInput', {
  description: 'Exactly one strategy block',
  fields: (t) => ({
    symbol: t.string({ required: true }),
    qty: t.string({ required: true }),
    feeAsset: t.field({ type: FeeAsset }),
    selfTradePreventionMode: t.field({ type: StpMode }),
    clientTriggerId: t.string(),
    expireAt: t.string({ description: 'RFC 3339 with an offset, 1 second to 30 days ahead: a stop-loss, take-profit or trailing stop not fired by then ends EXPIRED' }),
    stopLoss: t.field({ type: StopBlockInput }),
    takeProfit: t.field({ type: StopBlockInput }),
    ladder: t.field({
      type: builder.inputType('LadderBlockInput', {
        fields: (f) => ({
          side: f.field({ type: Side, required: true }),
          levels: f.int({ required: true }),
          minPrice: f.string({ required: true }),
          maxPrice: f.string({ required: true }),
          distribution: f.field({ type: builder.enumType('LadderDistribution', { values: ['FLAT', 'ASCENDING', 'DESCENDING'] as const }) }),
          postOnly: f.boolean(),
        }),
      }),
    }),
    twap: t.field({
      type: builder.inputType('TwapBlockInput', {
        description: 'Exactly one of maxAdverseBps and maxAdverseTicks',
        fields: (f) => ({
          side: f.field({ type: Side, required: true }),
          durationMs: f.int({ required: true }),
          intervalMs: f.int({ required: true }),
          limitPrice: f.string(),
          maxAdverseBps: f.int(),
          maxAdverseTicks: f.string(),
        }),
      }),
    }),
    trailingStop: t.field({
      type: builder.inputType('TrailingStopBlockInput', {
        description: 'Exactly one of trailingDistanceTicks and trailingDistanceBps; at most one of maxSlippageTicks and maxSlippageBps',
        fields: (f) => ({
          side: f.field({ type: Side, required: true }),
          activationPrice: f.string(),
          trailingDistanceTicks: f.string(),
          trailingDistanceBps: f.int(),
          maxSlippageTicks: f.int(),
          maxSlippageBps: f.int(),
        }),
      }),
    }),
  }),
});

/** GraphQL input objects carry nulls for absent fields; the service takes them absent. */
function deepDefined(o: unknown): unknown {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return o;
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, deepDefined(v)]));
}

builder.queryFields((t) => ({
  triggers: t.field({
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
      return { triggers: r.triggers.map((x) => triggerView(x.trigger, x.market, r.account)), nextPageToken: r.nextPageToken };
    },
  }),
  trigger: t.field({
    type: Trigger,
    args: { triggerId: t.arg.string({ required: true }), subaccountId: t.arg.string() },
    resolve: async (_root, { triggerId, ...query }, ctx) => {
      parseArgs(schemas.getTriggerParams, { triggerId }, 'params');
      parseArgs(schemas.getTriggerQuery, query, 'query');
      const r = await ctx.services.orders.getTrigger(callerOf(ctx), { triggerId, ...defined(query) });
      return triggerView(r.trigger, r.market, r.account);
    },
  }),
  triggerEvents: t.field({
    type: TriggerEventPage,
    description: 'A trigger\'s events, newest first (as GET /v1/triggers/{triggerId}/events)',
    args: { triggerId: t.arg.string({ required: true }), eventType: t.arg.string(), subaccountId: t.arg.string(), limit: t.arg.int(), pageToken: t.arg.string() },
    resolve: async (_root, { triggerId, ...query }, ctx) => {
      parseArgs(schemas.listTriggerEventsParams, { triggerId }, 'params');
      parseArgs(schemas.listTriggerEventsQuery, query, 'query');
      const r = await ctx.services.orders.listTriggerEvents(callerOf(ctx), { triggerId, ...defined(query) });
      return { events: r.events.map((e) => triggerEventView(e, r.trigger, r.market, r.account, e.childOrder?.publicId ?? null)), nextPageToken: r.nextPageToken };
    },
  }),
}));

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
      return triggerView(got.trigger, got.market, got.account);
    },
  }),
  cancelTrigger: t.field({
    type: Trigger,
    args: { triggerId: t.arg.string(), clientTriggerId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelTriggerBody, args);
      const r = await ctx.services.orders.cancelTrigger(callerOf(ctx), defined(args) ?? {});
      return triggerView(r.trigger, r.market, r.account);
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
      return triggerView(r.trigger, r.market, r.account);
    },
  }),
  cancelAllTriggers: t.field({
    type: CanceledTriggers,
    description: 'Cancels the live triggers of the account, of one symbol if given, in one job (as POST /v1/triggers/cancel-all)',
    args: { subaccountId: t.arg.string(), symbol: t.arg.string(), includeAttached: t.arg.boolean({ description: 'Also the legs protecting orders and filled positions (default true)' }) },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelAllTriggersBody, args);
      const r = await ctx.services.orders.cancelAllTriggers(callerOf(ctx), defined(args) ?? {});
      return { canceledTriggerIds: r.canceledTriggerIds, canceledCount: r.canceledTriggerIds.length, tsNs: r.tsNs.toString() };
    },
  }),
  pauseTrigger: t.field({
    type: Trigger,
    description: 'Stops an armed trigger watching prices; its funds stay held',
    args: { triggerId: t.arg.string(), clientTriggerId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.pauseTriggerBody, args);
      const r = await ctx.services.orders.pauseTrigger(callerOf(ctx), defined(args) ?? {});
      return triggerView(r.trigger, r.market, r.account);
    },
  }),
  resumeTrigger: t.field({
    type: Trigger,
    description: 'Arms a paused trigger again',
    args: { triggerId: t.arg.string(), clientTriggerId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.resumeTriggerBody, args);
      const r = await ctx.services.orders.resumeTrigger(callerOf(ctx), defined(args) ?? {});
      return triggerView(r.trigger, r.market, r.account);
    },
  }),
}));

builder.subscriptionFields((t) => ({
  triggerEvents: t.field({
    type: TriggerEvent,
    description: 'Every event of the caller\'s triggers, after it is durable, in commit order',
    args: { subaccountId: t.arg.string(), after: t.arg({ type: 'Int64', description: 'Resume: first every event after this sequence, then the live stream' }) },
    subscribe: async (_root, args, ctx) =>
      guardedStream(ctx, callerOf(ctx), await ctx.services.orders.subscribe(callerOf(ctx), 'triggers', args.subaccountId ?? undefined, args.after ?? undefined)),
    resolve: (p, _args, ctx) => ({ ...triggerEventView(p.event, { publicId: p.event.triggerPublicId }, ctx.services.markets.market(p.symbol) as Market, p.accountPublicId, p.event.childOrderPublicId), sequence: p.sequence }),
  }),
}));
