import type { Caller } from '../../auth/caller.ts';
import { findEntry, readBook } from './book.ts';
import type { AddressBookContext } from './context.ts';
import { entryView } from './views.ts';

export async function getAddressBookEntry(ctx: AddressBookContext, caller: Caller, input: { subaccountId?: string; entryId: string }) {
  const { book, scope } = await readBook(ctx, caller, input.subaccountId);
  return { entry: entryView(await findEntry(ctx.db, book, input.entryId), scope) };
}
