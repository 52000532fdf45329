import type { presentOrderBook } from '../../../../presenters/orderBook.ts';
import { builder } from '../../builder.ts';

type BookLevelShape = ReturnType<typeof presentOrderBook>['bids'][number];

export const BookLevel = builder.objectRef<BookLevelShape>('BookLevel').implement({
  fields: (t) => ({ price: t.exposeString('price'), qty: t.exposeString('qty'), orders: t.exposeInt('orders') }),
});
