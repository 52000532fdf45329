import { formatScaled } from '../../../domain/money.ts';
import type { LedgerTransferLeg } from '../../../generated/prisma/client.ts';
import {
  BATCH_CANCEL_MAX,
  batchCancelOrdersBody,
  cancelAllAfterBody,
  cancelAllOrdersBody,
  cancelOrderBody,
  createOrderBody,
  getOpenOrdersQuery,
  getOrderBookQuery,
  getOrderByClientOrderIdParams,
  getOrderByClientOrderIdQuery,
  getOrderParams,
  getOrderQuery,
  getPublicTradesQuery,
  getUserTradesQuery,
  levelView,
  modifyOrderBody,
  ORDER_BOOK_DEPTH_DEFAULT,
  orderView as orderJson,
  PUBLIC_TRADES_LIMIT_DEFAULT,
  publicTradeView,
  replaceOrderBody,
  setAttachedRiskBody,
  tradeView as tradeJson,
} from '../../../services/trading/index.ts';
import type { Services } from '../../../services/index.ts';
import type { Market } from '../../../services/markets.ts';
import { toRfc3339 } from '../codec.ts';
import { defineRoute } from '../route.ts';

function tradeLegJson(l: LedgerTransferLeg) {
  return {
    matchId: (l.matchId ?? 0n).toString(),
    symbolId: l.symbolId ?? 0,
    account: l.ledgerAccount,
    asset: String(l.assetId),
    isDebit: l.isDebit,
    transferCode: l.transferCode,
    txId: l.txId ?? '',
    timestamp: l.timestampUs.toString(),
  };
}

/** Spec 4.5 Create Order response (also answered by replace). */
function acceptedJson(r: { orderId: string; clientOrderId: string; acceptedAt: Date; acceptedAtTsNs: bigint; resolvedBaseQty: bigint; submittedMaxQuoteDebit?: bigint | undefined; market: Market; legTriggers?: Partial<Record<'stopLoss' | 'takeProfit' | 'trailingStop', string>> }) {
  return {
    orderId: r.orderId,
    ...(r.clientOrderId ? { clientOrderId: r.clientOrderId } : {}),
    acceptedAt: toRfc3339(r.acceptedAt),
    acceptedAtTsNs: r.acceptedAtTsNs.toString(),
    resolvedBaseQty: formatScaled(r.resolvedBaseQty, r.market.baseQuantityScale),
    ...(r.submittedMaxQuoteDebit !== undefined ? { submittedMaxQuoteDebit: formatScaled(r.submittedMaxQuoteDebit, r.market.quoteQuantityScale) } : {}),
    stopLossTriggerId: r.legTriggers?.stopLoss ?? '',
    takeProfitTriggerId: r.legTriggers?.takeProfit ?? '',
    trailingStopTriggerId: r.legTriggers?.trailingStop ?? '',
  };
}

export function tradingRoutes(s: Services) {
  const market = (symbolId: number) => s.markets.marketById(symbolId) as Market;
  return [
    defineRoute({
      operationId: 'getSpotConfig',
      method: 'GET',
      url: '/v1/spot/config',
      summary: 'Markets and assets: scales, tick size, minimums, fee rates per VIP tier',
      auth: 'public',
      handler: async () => s.orders.getSpotConfig(),
    }),
    defineRoute({
      operationId: 'createOrder',
      method: 'POST',
      url: '/v1/orders',
      summary: 'Create an order (spec 4.5)',
      auth: 'caller',
      body: createOrderBody,
      // One order variant per request: exactly one of limitGtc, limitGtd, limitIoc, marketIoc.
      examples: {
        limitGtc: {
          summary: 'Limit, good till cancelled, with a client order id',
          value: { order: { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.5', clientOrderId: 'my-ask-1', limitGtc: { price: '30000.5', postOnly: true } } },
        },
        limitGtd: {
          summary: 'Limit, good till a date',
          value: { order: { symbol: 'ETH-USDC', side: 'BUY', baseQty: '1.25', limitGtd: { price: '2400', expireAt: '2030-01-01T00:00:00Z' } } },
        },
        limitIoc: {
          summary: 'Limit, immediate or cancel',
          value: { order: { symbol: 'SOL-USDC', side: 'BUY', baseQty: '2', limitIoc: { price: '150' } } },
        },
        marketIoc: {
          summary: 'Market, immediate or cancel',
          value: { order: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', marketIoc: {} } },
        },
        attachedStopLoss: {
          summary: 'Limit with an attached stop loss',
          value: {
            order: {
              symbol: 'ETH-USDC',
              side: 'BUY',
              baseQty: '1',
              limitGtc: { price: '2500' },
              attachedRisk: { stopLoss: { triggerPrice: '2300', child: { marketIoc: {} } } },
            },
          },
        },
      },
      handler: async ({ body }, ctx) => {
        const r = await s.orders.createOrder(ctx.caller, { ...(body.subaccountId ? { subaccountId: body.subaccountId } : {}), order: body.order });
        return acceptedJson(r);
      },
    }),
    defineRoute({
      operationId: 'getOrder',
      method: 'GET',
      url: '/v1/orders/:orderId',
      summary: 'Get one order by id',
      auth: 'caller',
      params: getOrderParams,
      query: getOrderQuery,
      handler: async ({ params, query }, ctx) => {
        const r = await s.orders.getOrder(ctx.caller, { orderId: params.orderId, ...query });
        return { order: orderJson(r.order, market(r.order.symbolId)) };
      },
    }),
    defineRoute({
      operationId: 'getOrderByClientOrderId',
      method: 'GET',
      url: '/v1/orders/by-client-order-id/:clientOrderId',
      summary: 'Get the latest order with a client order id',
      auth: 'caller',
      params: getOrderByClientOrderIdParams,
      query: getOrderByClientOrderIdQuery,
      handler: async ({ params, query }, ctx) => {
        const r = await s.orders.getOrderByClientOrderId(ctx.caller, { clientOrderId: params.clientOrderId, ...query });
        return { order: orderJson(r.order, market(r.order.symbolId)) };
      },
    }),
    defineRoute({
      operationId: 'getOpenOrders',
      method: 'GET',
      url: '/v1/orders/open',
      summary: 'Non-terminal orders of an account (spec 4.5)',
      auth: 'caller',
      query: getOpenOrdersQuery,
      handler: async ({ query }, ctx) => {
        const r = await s.orders.getOpenOrders(ctx.caller, {
          includeAttachedRisk: query.includeAttachedRisk === true,
          includeAttachedRiskState: query.includeAttachedRiskState === true,
          ...(query.subaccountId ? { subaccountId: query.subaccountId } : {}),
          ...(query.symbol ? { symbols: query.symbol } : {}),
          ...(query.side ? { side: query.side } : {}),
          ...(query.triggerId ? { triggerId: query.triggerId } : {}),
          ...(query.limit ? { limit: query.limit } : {}),
          ...(query.pageToken ? { pageToken: query.pageToken } : {}),
        });
        return {
          orders: r.orders.map((o) => ({
            ...orderJson(o.order, market(o.order.symbolId)),
            ...(o.attachedRisk ? { attachedRisk: o.attachedRisk } : {}),
          })),
          nextPageToken: r.nextPageToken,
        };
      },
    }),
    defineRoute({
      operationId: 'cancelOrder',
      method: 'POST',
      url: '/v1/orders/cancel',
      summary: 'Cancel an order (spec 4.5)',
      auth: 'caller',
      body: cancelOrderBody,
      handler: async ({ body }, ctx) => {
        const r = await s.orders.cancelOrder(ctx.caller, body);
        return { orderId: r.orderId, status: r.status, ts: toRfc3339(r.ts), tsNs: r.tsNs.toString() };
      },
    }),
    defineRoute({
      operationId: 'modifyOrder',
      method: 'POST',
      url: '/v1/orders/modify',
      summary: 'Change a resting order’s total quantity (across the lineage, filled included) and/or price (a decrease keeps priority)',
      auth: 'caller',
      body: modifyOrderBody,
      handler: async ({ body }, ctx) => {
        const r = await s.orders.modifyOrder(ctx.caller, body);
        return { order: orderJson(r.order, r.market) };
      },
    }),
    defineRoute({
      operationId: 'setAttachedRisk',
      method: 'POST',
      url: '/v1/orders/attached-risk',
      summary: 'Replace the attached risk of an open order, or protect the position of an ended order that filled: its live legs end, the new ones arm for what it filled',
      auth: 'caller',
      body: setAttachedRiskBody,
      examples: {
        bracket: { summary: 'Protect a filled BUY with a stop at 2300 and a take-profit at 2600, one canceling the other', value: { orderId: '5Hx3v9Lq2', attachedRisk: { oco: true, stopLoss: { triggerPrice: '2300', child: { marketIoc: {} } }, takeProfit: { triggerPrice: '2600', child: { limit: { price: '2600' } } } } } },
      },
      handler: async ({ body }, ctx) => {
        const r = await s.orders.setAttachedRisk(ctx.caller, body);
        return {
          orderId: r.order.publicId,
          stopLossTriggerId: r.legTriggers.stopLoss ?? '',
          takeProfitTriggerId: r.legTriggers.takeProfit ?? '',
          trailingStopTriggerId: r.legTriggers.trailingStop ?? '',
        };
      },
    }),
    defineRoute({
      operationId: 'replaceOrder',
      method: 'POST',
      url: '/v1/orders/replace',
      summary: 'Replace an open order with the next generation of its lineage; baseQty is the lineage’s total, filled included',
      auth: 'caller',
      body: replaceOrderBody,
      handler: async ({ body }, ctx) => {
        const r = await s.orders.replaceOrder(ctx.caller, body);
        return acceptedJson(r);
      },
    }),
    defineRoute({
      operationId: 'batchCancelOrders',
      method: 'POST',
      url: '/v1/orders/cancel-batch',
      summary: `Cancel up to ${BATCH_CANCEL_MAX} orders; requestId makes the batch idempotent (spec 4.5, 7.5)`,
      auth: 'caller',
      body: batchCancelOrdersBody,
      handler: async ({ body }, ctx) => s.orders.batchCancelOrders(ctx.caller, body),
    }),
    defineRoute({
      operationId: 'cancelAllAfter',
      method: 'POST',
      url: '/v1/orders/cancel-all-after',
      summary: 'Dead-man switch: cancel the orders in scope unless refreshed within timeoutSec (spec 3, 4.5)',
      auth: 'caller',
      body: cancelAllAfterBody,
      handler: async ({ body }, ctx) => s.orders.cancelAllAfter(ctx.caller, body),
    }),
    defineRoute({
      operationId: 'cancelAllOrders',
      method: 'POST',
      url: '/v1/orders/cancel-all',
      summary: 'Cancel every open order of an account, optionally by symbol and side',
      auth: 'caller',
      body: cancelAllOrdersBody,
      handler: async ({ body }, ctx) => {
        const r = await s.orders.cancelAllOrders(ctx.caller, body);
        return { canceledCount: r.canceledCount, ts: toRfc3339(r.ts), tsNs: r.tsNs.toString() };
      },
    }),
    defineRoute({
      operationId: 'getUserTrades',
      method: 'GET',
      url: '/v1/spot/trades',
      summary: 'The caller’s fills (spec 4.5)',
      auth: 'caller',
      query: getUserTradesQuery,
      handler: async ({ query }, ctx) => {
        const r = await s.orders.getUserTrades(ctx.caller, query);
        return {
          trades: r.trades.map((t) => tradeJson(t.trade, market(t.trade.symbolId), t.orderPublicId)),
          transfers: r.transfers.map(tradeLegJson),
          nextPageToken: r.nextPageToken,
        };
      },
    }),
    defineRoute({
      operationId: 'getOrderBook',
      method: 'GET',
      url: '/v1/spot/orderbook',
      summary: 'Aggregated order book levels (public)',
      auth: 'public',
      query: getOrderBookQuery,
      handler: async ({ query }) => {
        const { market: m, depth, sequence } = s.orders.getOrderBook(query.symbol, query.depth ?? ORDER_BOOK_DEPTH_DEFAULT);
        const level = (l: { price: bigint; qty: bigint; orders: number }) => levelView(l, m);
        return { symbol: m.symbol, sequence: sequence.toString(), bids: depth.bids.map(level), asks: depth.asks.map(level) };
      },
    }),
    defineRoute({
      operationId: 'getPublicTrades',
      method: 'GET',
      url: '/v1/spot/public-trades',
      summary: 'Recent trades of a symbol, newest first (public)',
      auth: 'public',
      query: getPublicTradesQuery,
      handler: async ({ query }) => {
        const { market: m, trades } = await s.orders.getPublicTrades(query.symbol, query.limit ?? PUBLIC_TRADES_LIMIT_DEFAULT);
        return { symbol: m.symbol, trades: trades.map((t) => publicTradeView(t, m)) };
      },
    }),
  ];
}

