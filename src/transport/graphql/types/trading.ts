import type { GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import type { Violation as ViolationShape } from '../../../domain/errorCatalogue.ts';
import { formatScaled } from '../../../domain/money.ts';
import type { Asset, Market } from '../../../services/markets.ts';
import {
  type attachedRiskView,
  type BalanceEventPayload,
  type CreateOrderInput as CreateOrderInputShape,
  levelView,
  ORDER_BOOK_DEPTH_DEFAULT,
  type OrderLike,
  type OrdersService,
  orderView,
  PUBLIC_TRADES_LIMIT_DEFAULT,
  publicTradeView,
  spotConfigView,
  spotMarketView,
  tradeView,
} from '../../../services/trading/index.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../services/trading/index.ts';
import { e18 } from '../../../presenters/scalars.ts';
import { builder } from '../builder.ts';
import { callerOf, connectionFromPage, defined } from '../connections.ts';
import { guardedStream, publicStream } from '../guardedStream.ts';
import { parseArgs } from '../validate.ts';
import { FillLeg, type FillLegShape } from './fillLegs.ts';
import { ViewerRef } from './viewer.ts';

/**
 * Spec 2.7's order plus why a terminal order ended: REST keeps to the spec's fields, while
 * a trading UI needs to tell a self-trade-prevention or slippage cancel from its own.
 */
const orderOf = (o: OrderLike, market: Market) => ({ ...orderView(o, market), closeReason: o.closeReason });
type AttachedRiskShape = ReturnType<typeof attachedRiskView>;
/**
 * `sequence` is set on stream events only: where the event stands in the journal.
 * `attachedRisk` is loaded by the reads that show it (`order`, `viewer.openOrders`), and
 * only when the query selects it.
 */
type OrderShape = ReturnType<typeof orderOf> & { sequence?: bigint; attachedRisk?: AttachedRiskShape };

/** Whether the field being resolved selects `name` anywhere below it (fragments followed): loads what only that field needs. */
function selects(info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined): boolean =>
    (set?.selections ?? []).some((sel) => {
      if (sel.kind === 'Field') return sel.name.value === name || walk(sel.selectionSet);
      if (sel.kind === 'InlineFragment') return walk(sel.selectionSet);
      if (seen.has(sel.name.value)) return false;
      seen.add(sel.name.value);
      return walk(info.fragments[sel.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((f) => walk(f.selectionSet));
}
type FillShape = ReturnType<typeof tradeView> & { sequence?: bigint };

const SEQUENCE_DESCRIPTION =
  'Set on subscription events only: the event’s position in the trading journal, unique and increasing in commit order. Resubscribe with `after:` set to the last one received to get every later event exactly once';

const Lineage = builder.objectRef<{ generation: number; id: string }>('Lineage').implement({
  fields: (t) => ({ generation: t.exposeInt('generation'), id: t.exposeString('id') }),
});

const OrderOrigin = builder.objectRef<OrderShape['origin']>('OrderOrigin').implement({
  description: 'How the order came to be, as /v1’s `origin`: placed directly, or as a trigger’s child',
  fields: (t) => ({
    scope: t.exposeString('scope', { description: '`DIRECT` or `TRIGGER`' }),
    triggerId: t.exposeString('triggerId', { description: 'The trigger that placed the order; empty for a direct order' }),
    triggerType: t.exposeString('triggerType'),
    parentOrderId: t.exposeString('parentOrderId', { description: 'For an attached-risk leg’s child: the order the leg protects; empty otherwise' }),
    childSeq: t.exposeInt('childSeq', { description: 'One-based within the trigger; 0 for a direct order' }),
  }),
});

type RiskLegShape = NonNullable<AttachedRiskShape['stopLoss']>;
type RiskPolicyShape = NonNullable<RiskLegShape['policy']>;
type RiskChildShape = { limit?: { price?: string; postOnly: boolean }; marketIoc?: object };

const AttachedRiskChild = builder.objectRef<RiskChildShape>('AttachedRiskChild').implement({
  description: 'The order the leg places when it fires',
  fields: (t) => ({
    kind: t.string({ description: '`MARKET_IOC` or `LIMIT`', resolve: (c) => (c.limit ? 'LIMIT' : 'MARKET_IOC') }),
    limitPrice: t.string({ nullable: true, resolve: (c) => c.limit?.price ?? null }),
    postOnly: t.boolean({ resolve: (c) => c.limit?.postOnly === true }),
  }),
});

/** A stop-loss or take-profit policy and a trailing one are told apart by their keys, as in /v1. */
const policyField = (p: RiskPolicyShape, k: string): unknown => (p as Record<string, unknown>)[k] ?? null;
const AttachedRiskPolicy = builder.objectRef<RiskPolicyShape>('AttachedRiskLegPolicy').implement({
  description: 'The leg as submitted: `triggerPrice` and `child` for a stop-loss or take-profit, the trailing fields for a trailing stop',
  fields: (t) => ({
    triggerPrice: t.string({ nullable: true, resolve: (p) => policyField(p, 'triggerPrice') as string | null }),
    child: t.field({ type: AttachedRiskChild, nullable: true, resolve: (p) => policyField(p, 'child') as RiskChildShape | null }),
    activationPrice: t.string({ nullable: true, resolve: (p) => policyField(p, 'activationPrice') as string | null }),
    maxSlippageTicks: t.int({ nullable: true, resolve: (p) => policyField(p, 'maxSlippageTicks') as number | null }),
    maxSlippageBps: t.int({ nullable: true, resolve: (p) => policyField(p, 'maxSlippageBps') as number | null }),
    trailingDistanceTicks: t.string({ nullable: true, resolve: (p) => policyField(p, 'trailingDistanceTicks') as string | null }),
    trailingDistanceBps: t.int({ nullable: true, resolve: (p) => policyField(p, 'trailingDistanceBps') as number | null }),
  }),
});

const AttachedRiskState = builder.objectRef<NonNullable<RiskLegShape['state']>>('AttachedRiskLegState').implement({
  description: 'What the trigger executing the leg has done, as /v1’s `includeAttachedRiskState`',
  fields: (t) => ({
    status: t.exposeString('status', { description: '`PENDING` until the parent fills, then `ARMED`, `TRIGGERED`, `COMPLETED`, `CANCELED` or `FAILED`' }),
    triggerId: t.exposeString('triggerId'),
    childOrderId: t.exposeString('childOrderId', { description: 'Empty until the leg fires' }),
    armedAt: t.exposeString('armedAt', { description: '`"0"` until armed' }),
    terminalAt: t.exposeString('terminalAt', { description: '`"0"` until terminal' }),
  }),
});

const AttachedRiskLeg = builder.objectRef<RiskLegShape>('AttachedRiskLeg').implement({
  fields: (t) => ({
    policy: t.field({ type: AttachedRiskPolicy, resolve: (l) => l.policy as RiskPolicyShape }),
    state: t.field({ type: AttachedRiskState, resolve: (l) => l.state as NonNullable<RiskLegShape['state']> }),
  }),
});

const AttachedRiskView = builder.objectRef<AttachedRiskShape>('AttachedRisk').implement({
  description: 'The order’s attached-risk legs, as /v1/orders/open shows them with includeAttachedRisk and includeAttachedRiskState',
  fields: (t) => ({
    oco: t.exposeBoolean('oco'),
    stopLoss: t.field({ type: AttachedRiskLeg, nullable: true, resolve: (r) => r.stopLoss ?? null }),
    takeProfit: t.field({ type: AttachedRiskLeg, nullable: true, resolve: (r) => r.takeProfit ?? null }),
    trailingStop: t.field({ type: AttachedRiskLeg, nullable: true, resolve: (r) => r.trailingStop ?? null }),
  }),
});

/** Spec 2.7: the same fields and strings as /v1. */
const Order = builder.objectRef<OrderShape>('Order').implement({
  fields: (t) => ({
    orderId: t.exposeString('orderId'),
    clientOrderId: t.exposeString('clientOrderId'),
    symbol: t.exposeString('symbol'),
    side: t.exposeString('side'),
    orderType: t.exposeString('orderType'),
    status: t.exposeString('status'),
    tif: t.exposeString('tif'),
    price: t.exposeString('price'),
    origQty: t.exposeString('origQty'),
    cumQty: t.exposeString('cumQty'),
    leavesQty: t.exposeString('leavesQty'),
    inheritedCumQty: t.exposeString('inheritedCumQty'),
    avgPx: t.exposeString('avgPx'),
    feeAsset: t.exposeString('feeAsset'),
    postOnly: t.exposeBoolean('postOnly'),
    stpMode: t.exposeString('stpMode'),
    expireAt: t.string({ nullable: true, resolve: (o) => o.expireAt ?? null }),
    createdAt: t.exposeString('createdAt'),
    lineage: t.field({ type: Lineage, resolve: (o) => o.lineage }),
    origin: t.field({ type: OrderOrigin, resolve: (o) => o.origin }),
    attachedRisk: t.field({
      type: AttachedRiskView,
      nullable: true,
      description: 'The attached-risk legs with their policy and state, on `order` and `viewer.openOrders`; null for an order without legs, and on mutation results and subscription events',
      resolve: (o) => o.attachedRisk ?? null,
    }),
    submittedMaxQuoteDebit: t.string({ nullable: true, resolve: (o) => o.submittedMaxQuoteDebit ?? null }),
    version: t.exposeInt('version', { description: 'Increases with every published state change; reconcile reads with updates by it' }),
    closeReason: t.string({
      nullable: true,
      description: 'Why the order ended (USER_CANCELED, CANCEL_ALL, DEAD_MAN_SWITCH, IOC_REMAINDER, SELF_TRADE_PREVENTION, SLIPPAGE_LIMIT, QUOTE_DEBIT_LIMIT, NO_LIQUIDITY, GTD_EXPIRED, REPLACED); null while it works and when FILLED',
      resolve: (o) => o.closeReason,
    }),
    sequence: t.field({ type: 'Int64', nullable: true, description: SEQUENCE_DESCRIPTION, resolve: (o) => o.sequence ?? null }),
  }),
});

const Fill = builder.objectRef<FillShape>('Fill').implement({
  description: 'Spec 2.10: one fill of one of the caller’s orders',
  fields: (t) => ({
    matchId: t.field({ type: 'Int64', resolve: (f) => f.matchId }),
    orderId: t.exposeString('orderId'),
    lineage: t.field({ type: Lineage, resolve: (f) => f.lineage }),
    symbol: t.exposeString('symbol'),
    side: t.exposeString('side'),
    price: t.exposeString('price'),
    qty: t.exposeString('qty'),
    isMaker: t.exposeBoolean('isMaker'),
    fee: t.exposeString('fee'),
    feeAsset: t.exposeString('feeAsset'),
    feeIsRebate: t.exposeBoolean('feeIsRebate'),
    executedAt: t.exposeString('executedAt'),
    sequence: t.field({ type: 'Int64', nullable: true, description: SEQUENCE_DESCRIPTION, resolve: (f) => f.sequence ?? null }),
  }),
});

const BookLevel = builder.objectRef<{ price: string; qty: string; orders: number }>('BookLevel').implement({
  fields: (t) => ({ price: t.exposeString('price'), qty: t.exposeString('qty'), orders: t.exposeInt('orders') }),
});

const OrderBook = builder.objectRef<{ symbol: string; sequence: bigint; bids: { price: string; qty: string; orders: number }[]; asks: { price: string; qty: string; orders: number }[] }>('OrderBook').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    sequence: t.field({ type: 'Int64', description: 'Apply orderBookUpdates with a higher sequence on top of this snapshot', resolve: (b) => b.sequence }),
    bids: t.field({ type: [BookLevel], resolve: (b) => b.bids }),
    asks: t.field({ type: [BookLevel], resolve: (b) => b.asks }),
  }),
});

type SpotConfigShape = ReturnType<typeof spotConfigView>;
type SpotMarketShape = ReturnType<typeof spotMarketView>;

const SpotAsset = builder.objectRef<SpotConfigShape['assets'][number]>('SpotAsset').implement({
  fields: (t) => ({ unifiedAssetId: t.exposeInt('unifiedAssetId'), symbol: t.exposeString('symbol'), decimals: t.exposeInt('decimals') }),
});

const SpotFeeTier = builder.objectRef<SpotMarketShape['fees'][number]>('SpotFeeTier').implement({
  description: 'Parts per million; negative is a rebate',
  fields: (t) => ({ vipTier: t.exposeInt('vipTier'), makerFeePpm: t.exposeInt('makerFeePpm'), takerFeePpm: t.exposeInt('takerFeePpm') }),
});

/** GET /v1/spot/config's market, with camelCase names for its two snake_case fields. */
const SpotMarket = builder.objectRef<SpotMarketShape>('SpotMarket').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    symbolId: t.exposeInt('symbolId'),
    baseAsset: t.exposeString('baseAsset'),
    baseAssetId: t.exposeInt('baseAssetId'),
    quoteAsset: t.exposeString('quoteAsset'),
    quoteAssetId: t.exposeInt('quoteAssetId'),
    baseQuantityScale: t.int({ resolve: (m) => m.base_quantity_scale }),
    quoteQuantityScale: t.int({ resolve: (m) => m.quote_quantity_scale }),
    tickSize: t.exposeString('tickSize'),
    tickSizeQ9: t.field({ type: 'Int64', resolve: (m) => m.tickSizeQ9 }),
    minQty: t.exposeString('minQty'),
    minNotional: t.exposeString('minNotional'),
    fees: t.field({ type: [SpotFeeTier], description: 'One entry per VIP tier', resolve: (m) => m.fees }),
  }),
});

const SpotConfig = builder.objectRef<SpotConfigShape>('SpotConfig').implement({
  description: 'Markets and assets: scales, tick size, minimums, fee rates per VIP tier',
  fields: (t) => ({
    assets: t.field({ type: [SpotAsset], resolve: (c) => c.assets }),
    markets: t.field({ type: [SpotMarket], resolve: (c) => c.markets }),
  }),
});

const CreateOrderResult = builder
  .objectRef<{ orderId: string; clientOrderId: string; acceptedAt: string; acceptedAtTsNs: string; resolvedBaseQty: string; stopLossTriggerId: string; takeProfitTriggerId: string; trailingStopTriggerId: string }>('CreateOrderResult')
  .implement({
    fields: (t) => ({
      orderId: t.exposeString('orderId'),
      clientOrderId: t.exposeString('clientOrderId'),
      acceptedAt: t.exposeString('acceptedAt'),
      acceptedAtTsNs: t.exposeString('acceptedAtTsNs'),
      resolvedBaseQty: t.exposeString('resolvedBaseQty'),
      stopLossTriggerId: t.exposeString('stopLossTriggerId', { description: 'The trigger executing the attachedRisk stop-loss leg; empty without one' }),
      takeProfitTriggerId: t.exposeString('takeProfitTriggerId'),
      trailingStopTriggerId: t.exposeString('trailingStopTriggerId'),
    }),
  });

const LimitGtc = builder.inputType('LimitGtcInput', { fields: (t) => ({ price: t.string({ required: true }), postOnly: t.boolean() }) });
const LimitGtd = builder.inputType('LimitGtdInput', {
  fields: (t) => ({ price: t.string({ required: true }), expireAt: t.string({ required: true, description: 'RFC 3339 with an offset, exact to the nanosecond' }), postOnly: t.boolean() }),
});
const LimitIoc = builder.inputType('LimitIocInput', { fields: (t) => ({ price: t.string({ required: true }), maxQuoteDebit: t.string() }) });
const MarketIoc = builder.inputType('MarketIocInput', {
  fields: (t) => ({ clientRefPrice: t.string(), maxSlippageTicks: t.int(), maxSlippageBps: t.int(), maxQuoteDebit: t.string() }),
});

export const Side = builder.enumType('Side', { values: ['BUY', 'SELL'] as const });
export const FeeAsset = builder.enumType('FeeAsset', { values: ['QUOTE', 'BASE'] as const });
export const StpMode = builder.enumType('SelfTradePreventionMode', { values: ['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT'] as const });

const RiskChild = builder.inputType('RiskChildInput', {
  description: 'A market IOC child unless `limitPrice` is given',
  fields: (t) => ({ limitPrice: t.string(), postOnly: t.boolean() }),
});
const RiskLeg = builder.inputType('RiskLegInput', {
  fields: (t) => ({ triggerPrice: t.string({ required: true }), child: t.field({ type: RiskChild }) }),
});
const TrailingStop = builder.inputType('TrailingStopInput', {
  fields: (t) => ({
    activationPrice: t.string(),
    maxSlippageTicks: t.int(),
    maxSlippageBps: t.int(),
    trailingDistanceTicks: t.string(),
    trailingDistanceBps: t.int(),
  }),
});
const AttachedRisk = builder.inputType('AttachedRiskInput', {
  description: 'Stored with the order; the trigger engine arms and executes the legs',
  fields: (t) => ({
    oco: t.boolean({ description: 'The legs form one one-cancels-others group; needs at least two of stopLoss, takeProfit and trailingStop' }),
    stopLoss: t.field({ type: RiskLeg }),
    takeProfit: t.field({ type: RiskLeg }),
    trailingStop: t.field({ type: TrailingStop }),
  }),
});

type RiskLegArg = { triggerPrice: string; child?: { limitPrice?: string | null; postOnly?: boolean | null } | null } | null | undefined;

function riskLeg(leg: RiskLegArg) {
  if (!leg) return undefined;
  const child = leg.child?.limitPrice
    ? { limit: { price: leg.child.limitPrice, ...(leg.child.postOnly ? { postOnly: true } : {}) } }
    : { marketIoc: {} };
  return { triggerPrice: leg.triggerPrice, child };
}

const CreateOrderInput = builder.inputType('CreateOrderInput', {
  description: 'Exactly one of limitGtc, limitGtd, limitIoc and marketIoc',
  fields: (t) => ({
    subaccountId: t.string(),
    symbol: t.string({ required: true }),
    side: t.field({ type: Side, required: true }),
    baseQty: t.string({ required: true }),
    clientOrderId: t.string(),
    feeAsset: t.field({ type: FeeAsset }),
    selfTradePreventionMode: t.field({ type: StpMode }),
    limitGtc: t.field({ type: LimitGtc }),
    limitGtd: t.field({ type: LimitGtd }),
    limitIoc: t.field({ type: LimitIoc }),
    marketIoc: t.field({ type: MarketIoc }),
    attachedRisk: t.field({ type: AttachedRisk }),
  }),
});

type OrderInputArg = typeof CreateOrderInput.$inferInput;

/** The GraphQL attached-risk input as the order service takes it (the REST block's shape). */
function riskFromInput(attachedRisk: typeof AttachedRisk.$inferInput): NonNullable<CreateOrderInputShape['order']['attachedRisk']> {
  return {
    ...(attachedRisk.oco ? { oco: true } : {}),
    ...(attachedRisk.stopLoss ? { stopLoss: riskLeg(attachedRisk.stopLoss) } : {}),
    ...(attachedRisk.takeProfit ? { takeProfit: riskLeg(attachedRisk.takeProfit) } : {}),
    ...(attachedRisk.trailingStop ? { trailingStop: defined(attachedRisk.trailingStop) } : {}),
  } as NonNullable<CreateOrderInputShape['order']['attachedRisk']>;
}

const SetAttachedRiskResult = builder
  .objectRef<{ orderId: string; stopLossTriggerId: string; takeProfitTriggerId: string; trailingStopTriggerId: string }>('SetAttachedRiskResult')
  .implement({
    description: 'The order and the triggers of its new legs (empty for a leg not given)',
    fields: (t) => ({
      orderId: t.exposeString('orderId'),
      stopLossTriggerId: t.exposeString('stopLossTriggerId'),
      takeProfitTriggerId: t.exposeString('takeProfitTriggerId'),
      trailingStopTriggerId: t.exposeString('trailingStopTriggerId'),
    }),
  });

/** The GraphQL order input as the order service takes it (the REST body's shape). */
function orderFromInput(input: OrderInputArg): CreateOrderInputShape {
  const { subaccountId, limitGtc, limitGtd, limitIoc, marketIoc, attachedRisk, ...order } = input;
  const risk = attachedRisk ? riskFromInput(attachedRisk) : undefined;
  return {
    ...(subaccountId ? { subaccountId } : {}),
    order: {
      ...(defined(order) as Pick<CreateOrderInputShape['order'], 'symbol' | 'side' | 'baseQty'>),
      ...(limitGtc ? { limitGtc: defined(limitGtc) } : {}),
      ...(limitGtd ? { limitGtd: defined(limitGtd) } : {}),
      ...(limitIoc ? { limitIoc: defined(limitIoc) } : {}),
      ...(marketIoc ? { marketIoc: defined(marketIoc) } : {}),
      ...(risk ? { attachedRisk: risk } : {}),
    },
  };
}

function acceptedResult(r: { orderId: string; clientOrderId: string; acceptedAt: Date; acceptedAtTsNs: bigint; resolvedBaseQty: bigint; market: Market; legTriggers?: Partial<Record<'stopLoss' | 'takeProfit' | 'trailingStop', string>> }) {
  return {
    orderId: r.orderId,
    clientOrderId: r.clientOrderId,
    acceptedAt: r.acceptedAt.toISOString(),
    acceptedAtTsNs: r.acceptedAtTsNs.toString(),
    resolvedBaseQty: formatScaled(r.resolvedBaseQty, r.market.baseQuantityScale),
    stopLossTriggerId: r.legTriggers?.stopLoss ?? '',
    takeProfitTriggerId: r.legTriggers?.takeProfit ?? '',
    trailingStopTriggerId: r.legTriggers?.trailingStop ?? '',
  };
}

builder.queryFields((t) => ({
  spotConfig: t.field({
    type: SpotConfig,
    description: 'Public: what GET /v1/spot/config answers',
    resolve: (_root, _args, ctx) => spotConfigView(ctx.services.markets),
  }),
  order: t.field({
    type: Order,
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx, info) => {
      if (args.orderId != null) parseArgs(schemas.getOrderParams, { orderId: args.orderId }, 'params');
      if (args.clientOrderId != null) parseArgs(schemas.getOrderByClientOrderIdParams, { clientOrderId: args.clientOrderId }, 'params');
      parseArgs(schemas.getOrderQuery, { subaccountId: args.subaccountId }, 'query');
      const r = await ctx.services.orders.getOrder(callerOf(ctx), defined(args) ?? {}, { attachedRisk: selects(info, 'attachedRisk') });
      return { ...orderOf(r.order, ctx.services.markets.marketById(r.order.symbolId) as Market), ...(r.attachedRisk ? { attachedRisk: r.attachedRisk } : {}) };
    },
  }),
  orderBook: t.field({
    type: OrderBook,
    args: { symbol: t.arg.string({ required: true }), depth: t.arg.int() },
    resolve: (_root, args, ctx) => {
      parseArgs(schemas.getOrderBookQuery, args, 'query');
      const { market, depth, sequence } = ctx.services.orders.getOrderBook(args.symbol, args.depth ?? ORDER_BOOK_DEPTH_DEFAULT);
      const level = (l: { price: bigint; qty: bigint; orders: number }) => levelView(l, market);
      return { symbol: market.symbol, sequence, bids: depth.bids.map(level), asks: depth.asks.map(level) };
    },
  }),
}));

builder.mutationFields((t) => ({
  createOrder: t.field({
    type: CreateOrderResult,
    args: { input: t.arg({ type: CreateOrderInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const order = orderFromInput(input);
      parseArgs(schemas.createOrderBody, order);
      return acceptedResult(await ctx.services.orders.createOrder(callerOf(ctx), order));
    },
  }),
  cancelOrder: t.field({
    type: 'String',
    description: 'Cancels an order; answers its id',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), subaccountId: t.arg.string(), symbol: t.arg.string({ description: 'Routing hint, checked: an order of another pair is ORDER_NOT_FOUND and stays open' }) },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelOrderBody, args);
      return (await ctx.services.orders.cancelOrder(callerOf(ctx), defined(args) ?? {})).orderId;
    },
  }),
}));

const LevelChange = builder.objectRef<{ price: string; qty: string }>('BookLevelChange').implement({
  description: 'A price level’s new total quantity; "0" means the level is gone',
  fields: (t) => ({ price: t.exposeString('price'), qty: t.exposeString('qty') }),
});

const BookDelta = builder.objectRef<{ symbol: string; sequence: bigint; bids: { price: string; qty: string }[]; asks: { price: string; qty: string }[] }>('OrderBookDelta').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    sequence: t.field({ type: 'Int64', description: 'Consecutive per symbol: a gap means a missed delta, so fetch a new snapshot', resolve: (d) => d.sequence }),
    bids: t.field({ type: [LevelChange], resolve: (d) => d.bids }),
    asks: t.field({ type: [LevelChange], resolve: (d) => d.asks }),
  }),
});

const PublicTrade = builder.objectRef<ReturnType<typeof publicTradeView>>('PublicTrade').implement({
  fields: (t) => ({
    matchId: t.field({ type: 'Int64', resolve: (p) => p.matchId }),
    price: t.exposeString('price'),
    qty: t.exposeString('qty'),
    takerSide: t.exposeString('takerSide'),
    executedAt: t.exposeString('executedAt'),
  }),
});

builder.queryField('publicTrades', (t) =>
  t.field({
    type: [PublicTrade],
    description: 'Public: the most recent trades of a symbol, newest first',
    args: { symbol: t.arg.string({ required: true }), limit: t.arg.int() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.getPublicTradesQuery, { symbol: args.symbol }, 'query');
      const { market, trades } = await ctx.services.orders.getPublicTrades(args.symbol, args.limit ?? PUBLIC_TRADES_LIMIT_DEFAULT);
      return trades.map((p) => publicTradeView(p, market));
    },
  }),
);

builder.subscriptionFields((t) => ({
  orderBookUpdates: t.field({
    type: BookDelta,
    description: 'Public: changed price levels of a symbol after each durable batch, with sequence numbers',
    args: { symbol: t.arg.string({ required: true }) },
    subscribe: (_root, args, ctx) => publicStream(ctx.services.orders.subscribeMarket(args.symbol, 'book')),
    resolve: (p, _args, ctx) => {
      const market = ctx.services.markets.market(p.symbol) as Market;
      const view = (l: { price: bigint; qty: bigint }) => levelView(l, market);
      return { symbol: p.symbol, sequence: p.sequence, bids: p.bids.map(view), asks: p.asks.map(view) };
    },
  }),
  publicTrades: t.field({
    type: PublicTrade,
    description: 'Public: every trade of a symbol after it is durable',
    args: { symbol: t.arg.string({ required: true }) },
    subscribe: (_root, args, ctx) => publicStream(ctx.services.orders.subscribeMarket(args.symbol, 'trades')),
    resolve: (p, _args, ctx) => publicTradeView(p, ctx.services.markets.market(p.symbol) as Market),
  }),
  orderUpdates: t.field({
    type: Order,
    description: 'Every state change of the caller’s orders, after it is durable, each with its version',
    args: { subaccountId: t.arg.string(), after: t.arg({ type: 'Int64', description: 'Resume: first every event after this sequence, then the live stream' }) },
    subscribe: async (_root, args, ctx) =>
      guardedStream(ctx, callerOf(ctx), await ctx.services.orders.subscribe(callerOf(ctx), 'orders', args.subaccountId ?? undefined, args.after ?? undefined)),
    resolve: async (p, _args, ctx) => ({ ...orderOf(await ctx.services.orders.withOrigin(p.order), ctx.services.markets.market(p.symbol) as Market), sequence: p.sequence }),
  }),
  fills: t.field({
    type: Fill,
    description: 'The caller’s fills, after they are durable',
    args: { subaccountId: t.arg.string(), after: t.arg({ type: 'Int64', description: 'Resume: first every fill after this sequence, then the live stream' }) },
    subscribe: async (_root, args, ctx) =>
      guardedStream(ctx, callerOf(ctx), await ctx.services.orders.subscribe(callerOf(ctx), 'fills', args.subaccountId ?? undefined, args.after ?? undefined)),
    resolve: (p, _args, ctx) => ({ ...tradeView(p.trade, ctx.services.markets.market(p.symbol) as Market, p.orderPublicId), sequence: p.sequence }),
  }),
}));

const DeadManSwitch = builder
  .objectRef<{ status: string; effectiveTimeoutSec: number; expiresAtTsNs: string; ts: string; tsNs: string }>('DeadManSwitch')
  .implement({
    description: 'Spec 2.14',
    fields: (t) => ({
      status: t.exposeString('status'),
      effectiveTimeoutSec: t.exposeInt('effectiveTimeoutSec'),
      expiresAtTsNs: t.exposeString('expiresAtTsNs'),
      ts: t.exposeString('ts'),
      tsNs: t.exposeString('tsNs'),
    }),
  });

const BalanceUpdate = builder.objectRef<BalanceEventPayload>('BalanceUpdate').implement({
  description: 'A balance of the caller’s account as a durable change left it: a row of `viewer.balances`, zero rows included (a balance emptied)',
  fields: (t) => ({
    ledgerAccount: t.exposeString('ledgerAccount', { description: '`FUNDING` or `TRADING`' }),
    asset: t.string({ resolve: (b, _args, ctx) => (ctx.services.markets.asset(b.assetId) as Asset).symbol }),
    assetId: t.string({ description: 'The unified asset id', resolve: (b) => String(b.assetId) }),
    available: t.string({ description: '18 decimals', resolve: (b) => e18(b.available) }),
    held: t.string({ description: '18 decimals', resolve: (b) => e18(b.held) }),
    total: t.string({ description: '18 decimals: available + held', resolve: (b) => e18(b.available + b.held) }),
    sequence: t.expose('sequence', {
      type: 'Int64',
      description: 'The update’s position in the trading journal, unique and increasing in commit order. Resubscribe with `after:` set to the last one received to get every later update exactly once',
    }),
  }),
});

builder.subscriptionFields((t) => ({
  balanceUpdates: t.field({
    type: BalanceUpdate,
    description: 'Every balance of the caller’s account a durable change moved (trades, orders’ and triggers’ holds, transfers, deposits, withdrawals), as the change left it',
    args: { subaccountId: t.arg.string(), after: t.arg({ type: 'Int64', description: 'Resume: first every update after this sequence, then the live stream' }) },
    subscribe: async (_root, args, ctx) =>
      guardedStream(ctx, callerOf(ctx), await ctx.services.orders.subscribe(callerOf(ctx), 'balances', args.subaccountId ?? undefined, args.after ?? undefined)),
    resolve: (payload) => payload,
  }),
}));

builder.objectFields(ViewerRef, (t) => ({
  openOrders: t.connection({
    type: Order,
    args: { subaccountId: t.arg.string(), symbols: t.arg.stringList(), side: t.arg({ type: Side }), triggerId: t.arg.string({ description: 'Only the orders this trigger placed' }) },
    resolve: (caller, args, ctx, info) => {
      // Page sizes stay the service's to check, as for every connection (docs/api-decisions.md, "Page sizes").
      parseArgs(schemas.getOpenOrdersQuery, { subaccountId: args.subaccountId, symbol: args.symbols, side: args.side, triggerId: args.triggerId }, 'query');
      return connectionFromPage(args, 100, async (page) => {
        const withRisk = selects(info, 'attachedRisk');
        const r = await ctx.services.orders.getOpenOrders(caller, {
          ...page,
          includeAttachedRisk: withRisk,
          includeAttachedRiskState: withRisk,
          ...(args.subaccountId ? { subaccountId: args.subaccountId } : {}),
          ...(args.symbols ? { symbols: args.symbols } : {}),
          ...(args.side ? { side: args.side } : {}),
          ...(args.triggerId ? { triggerId: args.triggerId } : {}),
        });
        return {
          items: r.orders.map((o) => ({ ...orderOf(o.order, ctx.services.markets.marketById(o.order.symbolId) as Market), ...(o.attachedRisk ? { attachedRisk: o.attachedRisk } : {}) })),
          nextPageToken: r.nextPageToken,
        };
      });
    },
  }),
  fills: t.connection(
    {
      type: Fill,
      args: {
        subaccountId: t.arg.string(),
        symbol: t.arg.string(),
        orderId: t.arg.string(),
        lineageId: t.arg.string(),
        throughGeneration: t.arg.int({ description: 'With lineageId: only the fills of its generations up to this one' }),
        afterMatchId: t.arg({ type: 'Int64', description: 'With symbol: only the fills of later matches' }),
        side: t.arg({ type: Side }),
        startTime: t.arg({ type: 'Int64', description: 'Epoch nanoseconds, inclusive' }),
        endTime: t.arg({ type: 'Int64', description: 'Epoch nanoseconds, exclusive' }),
      },
      resolve: async (caller, { first, after, last, before, ...filters }, ctx, info) => {
        parseArgs(schemas.getUserTradesQuery, filters, 'query');
        // The legs are read, as /v1's includeTransfers, only when the query selects them.
        let transfers: FillLegShape[] = [];
        const connection = await connectionFromPage({ first, after, last, before }, 100, async (page) => {
          const r = await ctx.services.orders.getUserTrades(caller, { ...page, ...defined(filters), ...(selects(info, 'transfers') ? { includeTransfers: true } : {}) });
          transfers = r.transfers;
          return { items: r.trades.map((x) => tradeView(x.trade, ctx.services.markets.marketById(x.trade.symbolId) as Market, x.orderPublicId)), nextPageToken: r.nextPageToken };
        });
        return { ...connection, transfers };
      },
    },
    {
      fields: (t) => ({
        transfers: t.field({ type: [FillLeg], description: 'The ledger legs that settled this page’s fills (read only when selected)', resolve: (c) => c.transfers }),
      }),
    },
  ),
}));

const Violation = builder.objectRef<ViolationShape>('Violation').implement({
  fields: (t) => ({ fieldPath: t.exposeString('fieldPath'), message: t.exposeString('message'), ruleId: t.exposeString('ruleId') }),
});

/** The service's answer, which REST sends as it is. */
type CancelBatchShape = Awaited<ReturnType<OrdersService['batchCancelOrders']>>;
type BatchItemErrorShape = Extract<CancelBatchShape['results'][number], { status: 'REJECTED' }>['error'];
type BatchItemShape = { orderId: string; clientOrderId?: string; status: string; code?: string; error?: BatchItemErrorShape };

const BatchRateLimit = builder.objectRef<NonNullable<BatchItemErrorShape['rateLimit']>>('CancelBatchRateLimit').implement({
  description: 'The quota an item was refused by, as in a RATE_LIMIT_EXCEEDED error',
  fields: (t) => ({
    limit: t.field({ type: 'Int64', resolve: (r) => r.limit }),
    operationId: t.exposeString('operationId', { nullable: true }),
    policyClass: t.exposeString('policyClass', { nullable: true }),
    policyVersion: t.exposeString('policyVersion', { nullable: true }),
    reason: t.exposeString('reason', { nullable: true }),
    refillModel: t.exposeString('refillModel', { nullable: true }),
    remaining: t.field({ type: 'Int64', resolve: (r) => r.remaining }),
    retryAfterMs: t.field({ type: 'Int64', resolve: (r) => r.retryAfterMs }),
    scope: t.exposeString('scope', { nullable: true }),
  }),
});

const BatchItemError = builder.objectRef<BatchItemErrorShape>('CancelBatchItemError').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    violations: t.field({ type: [Violation], resolve: (e) => e.violations }),
    rateLimit: t.field({ type: BatchRateLimit, nullable: true, resolve: (e) => e.rateLimit ?? null }),
  }),
});

const BatchItemResult = builder.objectRef<BatchItemShape>('CancelBatchItemResult').implement({
  fields: (t) => ({
    orderId: t.exposeString('orderId', { description: 'Empty when the item named its order by clientOrderId only and was rejected' }),
    clientOrderId: t.string({ nullable: true, description: 'Echoed when the item gave one', resolve: (r) => r.clientOrderId ?? null }),
    status: t.exposeString('status', { description: '`ACCEPTED` or `REJECTED`' }),
    code: t.string({ nullable: true, resolve: (r) => r.code ?? null }),
    error: t.field({ type: BatchItemError, nullable: true, resolve: (r) => r.error ?? null }),
  }),
});

const CancelBatchResult = builder.objectRef<CancelBatchShape>('CancelBatchResult').implement({
  fields: (t) => ({
    acceptedCount: t.exposeInt('acceptedCount'),
    rejectedCount: t.exposeInt('rejectedCount'),
    results: t.field({ type: [BatchItemResult], description: 'One per item, in the order given', resolve: (r) => r.results }),
    ts: t.exposeString('ts'),
    tsNs: t.exposeString('tsNs'),
  }),
});

const CancelBatchItem = builder.inputType('CancelBatchItemInput', {
  description: 'An order named by orderId, clientOrderId or both',
  fields: (t) => ({ orderId: t.string(), clientOrderId: t.string() }),
});

builder.mutationFields((t) => ({
  cancelOrdersBatch: t.field({
    type: CancelBatchResult,
    description: 'Cancels up to 50 orders, rejecting items one by one; a repeated requestId answers the first result',
    args: { requestId: t.arg.string({ required: true }), subaccountId: t.arg.string(), items: t.arg({ type: [CancelBatchItem], required: true }) },
    resolve: (_root, { requestId, subaccountId, items }, ctx) => {
      const body = { ...defined({ subaccountId }), requestId, items: items.map((i) => defined(i) ?? {}) };
      parseArgs(schemas.batchCancelOrdersBody, body);
      return ctx.services.orders.batchCancelOrders(callerOf(ctx), body);
    },
  }),
  modifyOrder: t.field({
    type: Order,
    description: 'New total quantity (across the lineage, filled included) and/or price of a resting order; a decrease keeps time priority',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), subaccountId: t.arg.string(), newQty: t.arg.string(), newPrice: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.modifyOrderBody, args);
      const r = await ctx.services.orders.modifyOrder(callerOf(ctx), defined(args) ?? {});
      return orderOf(r.order, r.market);
    },
  }),
  setAttachedRisk: t.field({
    type: SetAttachedRiskResult,
    description: 'Replaces the attached risk of an open order, or protects the position of an ended order that filled (as POST /v1/orders/attached-risk)',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), subaccountId: t.arg.string(), attachedRisk: t.arg({ type: AttachedRisk, required: true }) },
    resolve: async (_root, { attachedRisk, ...names }, ctx) => {
      const body = { ...(defined(names) ?? {}), attachedRisk: riskFromInput(attachedRisk) };
      parseArgs(schemas.setAttachedRiskBody, body);
      const r = await ctx.services.orders.setAttachedRisk(callerOf(ctx), body);
      return {
        orderId: r.order.publicId,
        stopLossTriggerId: r.legTriggers.stopLoss ?? '',
        takeProfitTriggerId: r.legTriggers.takeProfit ?? '',
        trailingStopTriggerId: r.legTriggers.trailingStop ?? '',
      };
    },
  }),
  replaceOrder: t.field({
    type: CreateOrderResult,
    description: 'Replaces an open order with the next generation of its lineage; baseQty is the lineage’s total, filled included (FIX cancel/replace)',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), input: t.arg({ type: CreateOrderInput, required: true }) },
    resolve: async (_root, { orderId, clientOrderId, input }, ctx) => {
      const body = { ...(orderId ? { orderId } : {}), ...(clientOrderId ? { clientOrderId } : {}), ...orderFromInput(input) };
      parseArgs(schemas.replaceOrderBody, body);
      return acceptedResult(await ctx.services.orders.replaceOrder(callerOf(ctx), body));
    },
  }),
  cancelAllOrders: t.int({
    description: 'Cancels every open order in scope; answers how many',
    args: { subaccountId: t.arg.string(), symbol: t.arg.string(), side: t.arg({ type: Side }) },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelAllOrdersBody, args);
      return (await ctx.services.orders.cancelAllOrders(callerOf(ctx), defined(args) ?? {})).canceledCount;
    },
  }),
  cancelAllAfter: t.field({
    type: DeadManSwitch,
    description: 'Dead-man switch: 0 disables, 10..120 seconds arms or refreshes',
    args: { requestId: t.arg.string({ required: true }), timeoutSec: t.arg.int({ required: true }), symbol: t.arg.string(), side: t.arg({ type: Side }), subaccountId: t.arg.string() },
    resolve: (_root, args, ctx) => {
      parseArgs(schemas.cancelAllAfterBody, args);
      return ctx.services.orders.cancelAllAfter(callerOf(ctx), defined(args) as { requestId: string; timeoutSec: number });
    },
  }),
}));
