import { builder } from '../../builder.ts';

export type BookLevelShape = { price: string; qty: string; orders: number };

export const BookLevel = builder.objectRef<BookLevelShape>('BookLevel').implement({
  fields: (t) => ({ price: t.exposeString('price'), qty: t.exposeString('qty'), orders: t.exposeInt('orders') }),
});
