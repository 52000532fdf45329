import type { Caller } from '../../auth/caller.ts';
import type { AddressBookEntryKind } from '../../generated/prisma/client.ts';
import { afterNewestFirst, NEWEST_FIRST, newestFirstCursor, type NewestFirstCursor, pageLimit, toPage } from '../pageTokens.ts';
import { readBook } from './book.ts';
import type { AddressBookContext } from './context.ts';
import { ADDRESS_BOOK_LIST_DEFAULT, ADDRESS_BOOK_LIST_MAX } from './listAddressBookEntries.schema.ts';
import { ENTRY_INCLUDE, entryView } from './views.ts';

/** Newest created first; the page token is bound to the caller, the book and `kind`. */
export async function listAddressBookEntries(
  ctx: AddressBookContext,
  caller: Caller,
  input: { subaccountId?: string; kind?: AddressBookEntryKind; limit?: number; pageToken?: string },
) {
  const { book, scope } = await readBook(ctx, caller, input.subaccountId);
  const limit = pageLimit(input.limit, ADDRESS_BOOK_LIST_MAX, ADDRESS_BOOK_LIST_DEFAULT);
  const binding = {
    operation: 'listAddressBookEntries',
    caller: caller.rootPublicId,
    filters: { book: book.id, kind: input.kind ?? null, order: 'createdAt desc' },
  };
  const cursor = ctx.pageTokens.decode<NewestFirstCursor>(input.pageToken, binding);
  const rows = await ctx.db.addressBookEntry.findMany({
    where: {
      scopeAccountId: book.id,
      ...(input.kind ? { kind: input.kind } : {}),
      ...afterNewestFirst(cursor),
    },
    include: ENTRY_INCLUDE,
    orderBy: NEWEST_FIRST,
    take: limit + 1,
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, newestFirstCursor);
  return { entries: page.items.map((r) => entryView(r, scope)), nextPageToken: page.nextPageToken };
}
