import type { Caller } from '../../auth/caller.ts';
import { readBook } from './book.ts';
import type { AddressBookContext } from './context.ts';
import { MAX_TAGS_PER_BOOK } from './createAddressBookTag.schema.ts';
import { tagView } from './views.ts';

/** Every tag of the book (at most MAX_TAGS_PER_BOOK), by name. */
export async function listAddressBookTags(ctx: AddressBookContext, caller: Caller, input: { subaccountId?: string }) {
  const { book, scope } = await readBook(ctx, caller, input.subaccountId);
  const rows = await ctx.db.addressBookTag.findMany({
    where: { scopeAccountId: book.id },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    take: MAX_TAGS_PER_BOOK,
  });
  return { tags: rows.map((r) => tagView(r, scope)) };
}
