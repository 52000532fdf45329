import { presentOrderBook } from '../../../../presenters/orderBook.ts';
import { ORDER_BOOK_DEPTH_DEFAULT } from '../../../../services/trading/index.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { parseArgs } from '../../validate.ts';
import { BookLevel } from './bookLevel.ts';

const OrderBook = builder.objectRef<ReturnType<typeof presentOrderBook>>('OrderBook').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    sequence: t.field({ type: 'Int64', description: 'Apply orderBookUpdates with a higher sequence on top of this snapshot', resolve: (b) => b.sequence }),
    bids: t.field({ type: [BookLevel], resolve: (b) => b.bids }),
    asks: t.field({ type: [BookLevel], resolve: (b) => b.asks }),
  }),
});

builder.queryField('orderBook', (t) =>
  t.field({
    type: OrderBook,
    args: { symbol: t.arg.string({ required: true }), depth: t.arg.int() },
    resolve: (_root, args, ctx) => {
      parseArgs(schemas.getOrderBookQuery, args, 'query');
      return presentOrderBook(ctx.services.orders.getOrderBook(args.symbol, args.depth ?? ORDER_BOOK_DEPTH_DEFAULT));
    },
  }),
);
