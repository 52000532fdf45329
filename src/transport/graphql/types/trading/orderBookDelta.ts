import { presentLevel } from '../../../../presenters/orderBook.ts';
import type { Market } from '../../../../services/markets.ts';
import { builder } from '../../builder.ts';
import { publicStream } from '../../guardedStream.ts';
import { type BookLevelChangeShape, LevelChange } from './bookLevelChange.ts';

const BookDelta = builder.objectRef<{ symbol: string; sequence: bigint; bids: BookLevelChangeShape[]; asks: BookLevelChangeShape[] }>('OrderBookDelta').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    sequence: t.field({ type: 'Int64', description: 'Consecutive per symbol: a gap means a missed delta, so fetch a new snapshot', resolve: (d) => d.sequence }),
    bids: t.field({ type: [LevelChange], resolve: (d) => d.bids }),
    asks: t.field({ type: [LevelChange], resolve: (d) => d.asks }),
  }),
});

builder.subscriptionField('orderBookUpdates', (t) =>
  t.field({
    type: BookDelta,
    description: 'Public: changed price levels of a symbol after each durable batch, with sequence numbers',
    args: { symbol: t.arg.string({ required: true }) },
    subscribe: (_root, args, ctx) => publicStream(ctx.services.orders.subscribeMarket(args.symbol, 'book')),
    resolve: (p, _args, ctx) => {
      const market = ctx.services.markets.market(p.symbol) as Market;
      const view = (l: { price: bigint; qty: bigint }) => presentLevel(l, market);
      return { symbol: p.symbol, sequence: p.sequence, bids: p.bids.map(view), asks: p.asks.map(view) };
    },
  }),
);
