import type { Caller } from '../../auth/caller.ts';
import { findEntry, findTag, lockBook, reload, writeBook } from './book.ts';
import type { AddressBookContext } from './context.ts';
import { entryView } from './views.ts';

/** Idempotent: untagging an entry that does not have the tag changes nothing. */
export async function untagAddressBookEntry(ctx: AddressBookContext, caller: Caller, input: { subaccountId?: string; entryId: string; tagId: string }) {
  const { book, scope } = await writeBook(ctx, caller, input.subaccountId);
  return ctx.db.$transaction(async (tx) => {
    await lockBook(tx, book);
    const entry = await findEntry(tx, book, input.entryId);
    const tag = await findTag(tx, book, input.tagId, 'tagId');
    if (!entry.tags.some((t) => t.tagId === tag.id)) return { entry: entryView(entry, scope) };
    await tx.addressBookEntryTag.delete({ where: { entryId_tagId: { entryId: entry.id, tagId: tag.id } } });
    await tx.addressBookEntry.update({ where: { id: entry.id }, data: { updatedAt: ctx.clock.now(), revision: { increment: 1 } } });
    return { entry: await reload(tx, entry.id, scope) };
  });
}
