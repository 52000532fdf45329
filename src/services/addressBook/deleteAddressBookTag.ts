import type { Caller } from '../../auth/caller.ts';
import { findTag, lockBook, writeBook } from './book.ts';
import type { AddressBookContext } from './context.ts';

/** Removes the tag from every entry it was on; those entries get a new revision. */
export async function deleteAddressBookTag(ctx: AddressBookContext, caller: Caller, input: { subaccountId?: string; tagId: string }) {
  const { book } = await writeBook(ctx, caller, input.subaccountId);
  return ctx.db.$transaction(async (tx) => {
    await lockBook(tx, book);
    const tag = await findTag(tx, book, input.tagId);
    await tx.addressBookEntry.updateMany({
      where: { scopeAccountId: book.id, tags: { some: { tagId: tag.id } } },
      data: { updatedAt: ctx.clock.now(), revision: { increment: 1 } },
    });
    await tx.addressBookTag.delete({ where: { id: tag.id } });
    return {};
  });
}
