import { builder } from '../../builder.ts';

export type BookLevelChangeShape = { price: string; qty: string };

export const LevelChange = builder.objectRef<BookLevelChangeShape>('BookLevelChange').implement({
  description: 'A price level’s new total quantity; "0" means the level is gone',
  fields: (t) => ({ price: t.exposeString('price'), qty: t.exposeString('qty') }),
});
