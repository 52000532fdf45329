import type { Market } from '../../../../services/markets.ts';
import { presentPublicTrade, type PublicTradeView } from '../../../../presenters/publicTrade.ts';
import { PUBLIC_TRADES_LIMIT_DEFAULT } from '../../../../services/trading/index.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { publicStream } from '../../guardedStream.ts';
import { parseArgs } from '../../validate.ts';

/** A trade with its symbol: /v1 names it once beside the list, GraphQL on each trade, which the stream needs too. */
const publicTradeOf = (p: PublicTradeView, market: Market) => ({ ...presentPublicTrade(p, market), symbol: market.symbol });

const PublicTrade = builder.objectRef<ReturnType<typeof publicTradeOf>>('PublicTrade').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
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
      return trades.map((p) => publicTradeOf(p, market));
    },
  }),
);

builder.subscriptionField('publicTrades', (t) =>
  t.field({
    type: PublicTrade,
    description: 'Public: every trade of a symbol after it is durable',
    args: { symbol: t.arg.string({ required: true }) },
    subscribe: (_root, args, ctx) => publicStream(ctx.services.orders.subscribeMarket(args.symbol, 'trades')),
    resolve: (p, _args, ctx) => publicTradeOf(p, ctx.services.markets.market(p.symbol) as Market),
  }),
);
