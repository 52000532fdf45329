import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { findEntry, findTag, lockBook, reload, writeBook } from './book.ts';
import type { AddressBookContext } from './context.ts';
import { MAX_TAGS_PER_ENTRY } from './createAddressBookEntry.schema.ts';
import { entryView } from './views.ts';

/** Idempotent: tagging an entry that already has the tag changes nothing. */
export async function tagAddressBookEntry(ctx: AddressBookContext, caller: Caller, input: { subaccountId?: string; entryId: string; tagId: string }) {
  const { book, scope } = await writeBook(ctx, caller, input.subaccountId);
  return ctx.db.$transaction(async (tx) => {
    await lockBook(tx, book);
    const entry = await findEntry(tx, book, input.entryId);
    const tag = await findTag(tx, book, input.tagId, 'tagId');
    if (entry.tags.some((t) => t.tagId === tag.id)) return { entry: entryView(entry, scope) };
    if (entry.tags.length >= MAX_TAGS_PER_ENTRY) {
      throw invalidArgument('tagId', `an entry may have at most ${MAX_TAGS_PER_ENTRY} tags`, 'max-tags');
    }
    const now = ctx.clock.now();
    await tx.addressBookEntryTag.create({ data: { entryId: entry.id, tagId: tag.id, createdAt: now } });
    await tx.addressBookEntry.update({ where: { id: entry.id }, data: { updatedAt: now, revision: { increment: 1 } } });
    return { entry: await reload(tx, entry.id, scope) };
  });
}
