import { z } from 'zod';
import { formatScaled } from '../../../domain/money.ts';
import type { LedgerTransferLeg } from '../../../generated/prisma/client.ts';
import { levelView, orderView as orderJson, publicTradeView, tradeView as tradeJson } from '../../../services/trading/index.ts';
import type { Services } from '../../../services/index.ts';
import type { Market } from '../../../services/markets.ts';
import { int32, nonNegativeInt64, queryBool, queryInt, queryList, rfc3339Ns, toRfc3339 } from '../codec.ts';
import { defineRoute } from '../route.ts';

const SIDE = z.enum(['BUY', 'SELL']);
const STP = z.enum(['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT']);
const decimal = z.string().max(64);

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

const riskChild = z.strictObject({
  marketIoc: z.strictObject({}).optional(),
  limit: z.strictObject({ price: decimal, postOnly: z.boolean().optional() }).optional(),
});
const attachedRiskBody = z.strictObject({
  oco: z.boolean().optional(),
  stopLoss: z.strictObject({ triggerPrice: decimal, child: riskChild }).optional(),
  takeProfit: z.strictObject({ triggerPrice: decimal, child: riskChild }).optional(),
  trailingStop: z
    .strictObject({
      activationPrice: decimal.optional(),
      maxSlippageTicks: int32().optional(),
      maxSlippageBps: int32().optional(),
      trailingDistanceTicks: decimal.optional(),
      trailingDistanceBps: int32().optional(),
    })
    .optional(),
});

const orderBody = z.strictObject({
  symbol: z.string().max(32),
  side: SIDE,
  baseQty: decimal,
  clientOrderId: z.string().max(128).optional(),
  feeAsset: z.enum(['QUOTE', 'BASE']).optional(),
  selfTradePreventionMode: STP.optional(),
  limitGtc: z.strictObject({ price: decimal, postOnly: z.boolean().optional() }).optional(),
  limitGtd: z.strictObject({ price: decimal, expireAt: rfc3339Ns(), postOnly: z.boolean().optional() }).optional(),
  limitIoc: z.strictObject({ price: decimal, maxQuoteDebit: decimal.optional() }).optional(),
  marketIoc: z
    .strictObject({
      clientRefPrice: decimal.optional(),
      maxSlippageTicks: int32().optional(),
      maxSlippageBps: int32().optional(),
      maxQuoteDebit: decimal.optional(),
    })
    .optional(),
});

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
      body: z.strictObject({ subaccountId: z.string().max(64).optional(), order: orderBody.extend({ attachedRisk: attachedRiskBody.optional() }) }),
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
      params: z.object({ orderId: z.string().max(64) }),
      query: z.strictObject({ subaccountId: z.string().max(64).optional() }),
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
      params: z.object({ clientOrderId: z.string().max(128) }),
      query: z.strictObject({ subaccountId: z.string().max(64).optional() }),
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
      query: z.strictObject({
        includeAttachedRisk: queryBool().optional(),
        includeAttachedRiskState: queryBool().optional(),
        limit: queryInt(1, 1000).optional(),
        pageToken: z.string().max(2048).optional(),
        side: SIDE.optional(),
        subaccountId: z.string().max(64).optional(),
        symbol: queryList(z.string().max(32)).optional(),
        triggerId: z.string().max(64).optional(),
      }),
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
      body: z.strictObject({ orderId: z.string().max(64).optional(), clientOrderId: z.string().max(128).optional(), subaccountId: z.string().max(64).optional(), symbol: z.string().max(32).optional() }),
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
      body: z.strictObject({
        orderId: z.string().max(64).optional(),
        clientOrderId: z.string().max(128).optional(),
        subaccountId: z.string().max(64).optional(),
        newQty: decimal.optional(),
        newPrice: decimal.optional(),
      }),
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
      body: z.strictObject({
        orderId: z.string().max(64).optional(),
        clientOrderId: z.string().max(128).optional(),
        subaccountId: z.string().max(64).optional(),
        attachedRisk: attachedRiskBody,
      }),
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
      body: z.strictObject({
        orderId: z.string().max(64).optional(),
        clientOrderId: z.string().max(128).optional(),
        subaccountId: z.string().max(64).optional(),
        order: orderBody,
      }),
      handler: async ({ body }, ctx) => {
        const r = await s.orders.replaceOrder(ctx.caller, body);
        return acceptedJson(r);
      },
    }),
    defineRoute({
      operationId: 'batchCancelOrders',
      method: 'POST',
      url: '/v1/orders/cancel-batch',
      summary: 'Cancel up to 50 orders; requestId makes the batch idempotent (spec 4.5, 7.5)',
      auth: 'caller',
      body: z.strictObject({
        requestId: z.string().min(1).max(128),
        subaccountId: z.string().max(64).optional(),
        items: z.array(z.strictObject({ orderId: z.string().max(64).optional(), clientOrderId: z.string().max(128).optional() })).min(1).max(50),
      }),
      handler: async ({ body }, ctx) => s.orders.batchCancelOrders(ctx.caller, body),
    }),
    defineRoute({
      operationId: 'cancelAllAfter',
      method: 'POST',
      url: '/v1/orders/cancel-all-after',
      summary: 'Dead-man switch: cancel the orders in scope unless refreshed within timeoutSec (spec 3, 4.5)',
      auth: 'caller',
      body: z.strictObject({
        requestId: z.string().min(1).max(128),
        timeoutSec: int32(),
        symbol: z.string().max(32).optional(),
        side: SIDE.optional(),
        subaccountId: z.string().max(64).optional(),
      }),
      handler: async ({ body }, ctx) => s.orders.cancelAllAfter(ctx.caller, body),
    }),
    defineRoute({
      operationId: 'cancelAllOrders',
      method: 'POST',
      url: '/v1/orders/cancel-all',
      summary: 'Cancel every open order of an account, optionally by symbol and side',
      auth: 'caller',
      body: z.strictObject({ subaccountId: z.string().max(64).optional(), symbol: z.string().max(32).optional(), side: SIDE.optional() }),
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
      query: z.strictObject({
        orderId: z.string().max(64).optional(),
        lineageId: z.string().max(64).optional(),
        throughGeneration: queryInt(1, 1_000_000).optional(),
        afterMatchId: nonNegativeInt64().optional(),
        symbol: z.string().max(32).optional(),
        side: SIDE.optional(),
        startTime: nonNegativeInt64().optional(),
        endTime: nonNegativeInt64().optional(),
        includeTransfers: queryBool().optional(),
        subaccountId: z.string().max(64).optional(),
        limit: queryInt(1, 1000).optional(),
        pageToken: z.string().max(2048).optional(),
      }),
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
      query: z.strictObject({ symbol: z.string().max(32), depth: queryInt(1, 500).optional() }),
      handler: async ({ query }) => {
        const { market: m, depth, sequence } = s.orders.getOrderBook(query.symbol, query.depth ?? 50);
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
      query: z.strictObject({ symbol: z.string().max(32), limit: queryInt(1, 500).optional() }),
      handler: async ({ query }) => {
        const { market: m, trades } = await s.orders.getPublicTrades(query.symbol, query.limit ?? 100);
        return { symbol: m.symbol, trades: trades.map((t) => publicTradeView(t, m)) };
      },
    }),
  ];
}

