import { presentAttachedRisk } from '../../../../presenters/attachedRisk.ts';
import type { Market } from '../../../../services/markets.ts';
import { marketOf } from '../../markets.ts';
import type { RiskLegView } from '../../../../services/trading/index.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, connectionFromPage, defined } from '../../connections.ts';
import { guardedStream } from '../../guardedStream.ts';
import { selects } from '../../selects.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { AttachedRiskView } from './attachedRisk.ts';
import { Side } from './enums.ts';
import { Lineage } from './lineage.ts';
import { OrderOrigin } from './orderOrigin.ts';
import { orderOf, type OrderShape, SEQUENCE_DESCRIPTION } from './shapes.ts';

/** The legs with their policy and state: GraphQL loads them only when the query selects the field, so it shows both. */
const riskOf = (r: { attachedRisk?: { oco: boolean; legs: RiskLegView[] } }) => (r.attachedRisk ? presentAttachedRisk(r.attachedRisk.oco, r.attachedRisk.legs, { policy: true, state: true }) : undefined);

/** Spec 2.7: the same fields and strings as /v1. */
export const Order = builder.objectRef<OrderShape>('Order').implement({
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
    batchRequestId: t.exposeString('batchRequestId', { description: 'The batch replace that admitted it; "0" for other origins' }),
    lineage: t.field({ type: Lineage, resolve: (o) => o.lineage }),
    origin: t.field({ type: OrderOrigin, resolve: (o) => o.origin }),
    attachedRisk: t.field({
      type: AttachedRiskView,
      nullable: true,
      description: 'The attached-risk legs with their policy and state, on `order` and `viewer.openOrders`; null for an order without legs, and on mutation results and subscription events',
      resolve: (o) => o.attachedRisk ?? null,
    }),
    marketClientRefPrice: t.string({ nullable: true, resolve: (o) => o.marketClientRefPrice ?? null }),
    marketMaxSlippageBps: t.int({ nullable: true, resolve: (o) => o.marketMaxSlippageBps ?? null }),
    marketMaxSlippageTicks: t.exposeInt('marketMaxSlippageTicks', { description: '0: no absolute cap' }),
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

builder.queryField('order', (t) =>
  t.field({
    type: Order,
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx, info) => {
      if (args.orderId != null) parseArgs(schemas.getOrderParams, { orderId: args.orderId }, 'params');
      if (args.clientOrderId != null) parseArgs(schemas.getOrderByClientOrderIdParams, { clientOrderId: args.clientOrderId }, 'params');
      parseArgs(schemas.getOrderQuery, { subaccountId: args.subaccountId }, 'query');
      const r = await ctx.services.orders.getOrder(callerOf(ctx), defined(args) ?? {}, { attachedRisk: selects(info, 'attachedRisk') });
      return orderOf(r.order, marketOf(ctx, r.order), riskOf(r));
    },
  }),
);

builder.objectField(ViewerRef, 'openOrders', (t) =>
  t.connection({
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
          items: r.orders.map((o) => orderOf(o.order, marketOf(ctx, o.order), riskOf(o))),
          nextPageToken: r.nextPageToken,
        };
      });
    },
  }),
);

builder.mutationField('modifyOrder', (t) =>
  t.field({
    type: Order,
    description: 'New total quantity (across the lineage, filled included) and/or price of a resting order; a decrease keeps time priority',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), subaccountId: t.arg.string(), newQty: t.arg.string(), newPrice: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.modifyOrderBody, args);
      const r = await ctx.services.orders.modifyOrder(callerOf(ctx), defined(args) ?? {});
      return orderOf(r.order, r.market);
    },
  }),
);

builder.subscriptionField('orderUpdates', (t) =>
  t.field({
    type: Order,
    description: 'Every state change of the caller’s orders, after it is durable, each with its version',
    args: { subaccountId: t.arg.string(), after: t.arg({ type: 'Int64', description: 'Resume: first every event after this sequence, then the live stream' }) },
    subscribe: async (_root, args, ctx) =>
      guardedStream(ctx, callerOf(ctx), await ctx.services.orders.subscribe(callerOf(ctx), 'orders', args.subaccountId ?? undefined, args.after ?? undefined)),
    resolve: async (p, _args, ctx) => ({ ...orderOf(await ctx.services.orders.withOrigin(p.order), ctx.services.markets.market(p.symbol) as Market), sequence: p.sequence }),
  }),
);
