import { presentAttachedRisk, presentAttachedRiskSet, attachedRiskSetSchema } from '../../../presenters/attachedRisk.ts';
import { batchCancelSchema, presentBatchCancel } from '../../../presenters/batchCancel.ts';
import { deadManSwitchSchema, presentDeadManSwitch } from '../../../presenters/deadManSwitch.ts';
import { fillSchema, presentFill, presentFillLeg, userTradesSchema } from '../../../presenters/fill.ts';
import { openOrdersSchema, orderEnvelopeSchema, presentOrder } from '../../../presenters/order.ts';
import { orderAcceptedSchema, presentOrderAccepted } from '../../../presenters/orderAccepted.ts';
import { orderBookSchema, presentOrderBook } from '../../../presenters/orderBook.ts';
import { orderCanceledSchema, ordersCanceledSchema, presentOrderCanceled, presentOrdersCanceled } from '../../../presenters/orderCancel.ts';
import { presentPublicTrades, publicTradesSchema } from '../../../presenters/publicTrade.ts';
import { presentSpotConfig, spotConfigSchema } from '../../../presenters/spotConfig.ts';
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
  modifyOrderBody,
  ORDER_BOOK_DEPTH_DEFAULT,
  PUBLIC_TRADES_LIMIT_DEFAULT,
  replaceOrderBody,
  setAttachedRiskBody,
} from '../../../services/trading/index.ts';
import type { Services } from '../../../services/index.ts';
import type { Market } from '../../../services/markets.ts';
import { defineRoute } from '../route.ts';

export function tradingRoutes(s: Services) {
  const market = (symbolId: number) => s.markets.marketById(symbolId) as Market;
  return [
    defineRoute({
      operationId: 'getSpotConfig',
      method: 'GET',
      url: '/v1/spot/config',
      summary: 'Markets and assets: scales, tick size, minimums, fee rates per VIP tier',
      auth: 'public',
      response: spotConfigSchema,
      handler: async () => presentSpotConfig(s.orders.getSpotConfig()),
    }),
    defineRoute({
      operationId: 'createOrder',
      method: 'POST',
      url: '/v1/orders',
      summary: 'Create an order (spec 4.5)',
      auth: 'caller',
      body: createOrderBody,
      response: orderAcceptedSchema,
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
        return presentOrderAccepted(await s.orders.createOrder(ctx.caller, { ...(body.subaccountId ? { subaccountId: body.subaccountId } : {}), order: body.order }));
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
      response: orderEnvelopeSchema,
      handler: async ({ params, query }, ctx) => {
        const r = await s.orders.getOrder(ctx.caller, { orderId: params.orderId, ...query });
        return { order: presentOrder(r.order, market(r.order.symbolId)) };
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
      response: orderEnvelopeSchema,
      handler: async ({ params, query }, ctx) => {
        const r = await s.orders.getOrderByClientOrderId(ctx.caller, { clientOrderId: params.clientOrderId, ...query });
        return { order: presentOrder(r.order, market(r.order.symbolId)) };
      },
    }),
    defineRoute({
      operationId: 'getOpenOrders',
      method: 'GET',
      url: '/v1/orders/open',
      summary: 'Non-terminal orders of an account (spec 4.5)',
      auth: 'caller',
      query: getOpenOrdersQuery,
      response: openOrdersSchema,
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
        const include = { policy: query.includeAttachedRisk === true, state: query.includeAttachedRiskState === true };
        return {
          orders: r.orders.map((o) => presentOrder(o.order, market(o.order.symbolId), o.attachedRisk && presentAttachedRisk(o.attachedRisk.oco, o.attachedRisk.legs, include))),
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
      response: orderCanceledSchema,
      handler: async ({ body }, ctx) => presentOrderCanceled(await s.orders.cancelOrder(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'modifyOrder',
      method: 'POST',
      url: '/v1/orders/modify',
      summary: 'Change a resting order’s total quantity (across the lineage, filled included) and/or price (a decrease keeps priority)',
      auth: 'caller',
      body: modifyOrderBody,
      response: orderEnvelopeSchema,
      handler: async ({ body }, ctx) => {
        const r = await s.orders.modifyOrder(ctx.caller, body);
        return { order: presentOrder(r.order, r.market) };
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
      response: attachedRiskSetSchema,
      handler: async ({ body }, ctx) => presentAttachedRiskSet(await s.orders.setAttachedRisk(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'replaceOrder',
      method: 'POST',
      url: '/v1/orders/replace',
      summary: 'Replace an open order with the next generation of its lineage; baseQty is the lineage’s total, filled included',
      auth: 'caller',
      body: replaceOrderBody,
      response: orderAcceptedSchema,
      handler: async ({ body }, ctx) => presentOrderAccepted(await s.orders.replaceOrder(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'batchCancelOrders',
      method: 'POST',
      url: '/v1/orders/cancel-batch',
      summary: `Cancel up to ${BATCH_CANCEL_MAX} orders; requestId makes the batch idempotent (spec 4.5, 7.5)`,
      auth: 'caller',
      body: batchCancelOrdersBody,
      response: batchCancelSchema,
      handler: async ({ body }, ctx) => presentBatchCancel(await s.orders.batchCancelOrders(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'cancelAllAfter',
      method: 'POST',
      url: '/v1/orders/cancel-all-after',
      summary: 'Dead-man switch: cancel the orders in scope unless refreshed within timeoutSec (spec 3, 4.5)',
      auth: 'caller',
      body: cancelAllAfterBody,
      response: deadManSwitchSchema,
      handler: async ({ body }, ctx) => presentDeadManSwitch(await s.orders.cancelAllAfter(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'cancelAllOrders',
      method: 'POST',
      url: '/v1/orders/cancel-all',
      summary: 'Cancel every open order of an account, optionally by symbol and side',
      auth: 'caller',
      body: cancelAllOrdersBody,
      response: ordersCanceledSchema,
      handler: async ({ body }, ctx) => presentOrdersCanceled(await s.orders.cancelAllOrders(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'getUserTrades',
      method: 'GET',
      url: '/v1/spot/trades',
      summary: 'The caller’s fills (spec 4.5)',
      auth: 'caller',
      query: getUserTradesQuery,
      response: userTradesSchema,
      handler: async ({ query }, ctx) => {
        const r = await s.orders.getUserTrades(ctx.caller, query);
        return {
          trades: r.trades.map((t) => presentFill(t.trade, market(t.trade.symbolId), t.orderPublicId)),
          transfers: r.transfers.map(presentFillLeg),
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
      response: orderBookSchema,
      handler: async ({ query }) => presentOrderBook(s.orders.getOrderBook(query.symbol, query.depth ?? ORDER_BOOK_DEPTH_DEFAULT)),
    }),
    defineRoute({
      operationId: 'getPublicTrades',
      method: 'GET',
      url: '/v1/spot/public-trades',
      summary: 'Recent trades of a symbol, newest first (public)',
      auth: 'public',
      query: getPublicTradesQuery,
      response: publicTradesSchema,
      handler: async ({ query }) => presentPublicTrades(await s.orders.getPublicTrades(query.symbol, query.limit ?? PUBLIC_TRADES_LIMIT_DEFAULT)),
    }),
  ];
}

