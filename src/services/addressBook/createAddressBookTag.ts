import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { newPublicId } from '../../domain/ids.ts';
import { lockBook, writeBook } from './book.ts';
import { checkColor, checkTagName, duplicateTag, isUniqueViolation } from './checks.ts';
import type { AddressBookContext } from './context.ts';
import { MAX_TAGS_PER_BOOK } from './createAddressBookTag.schema.ts';
import { tagView } from './views.ts';

/** Tag names are unique within a book; at most MAX_TAGS_PER_BOOK tags per book. */
export async function createAddressBookTag(ctx: AddressBookContext, caller: Caller, input: { subaccountId?: string; name: string; color?: string }) {
  const { book, scope } = await writeBook(ctx, caller, input.subaccountId);
  const name = checkTagName(input.name);
  const color = checkColor(input.color ?? '');
  try {
    return await ctx.db.$transaction(async (tx) => {
      await lockBook(tx, book);
      const count = await tx.addressBookTag.count({ where: { scopeAccountId: book.id } });
      if (count >= MAX_TAGS_PER_BOOK) {
        throw invalidArgument('name', `an address book holds at most ${MAX_TAGS_PER_BOOK} tags`, 'max-tags');
      }
      if (await tx.addressBookTag.findFirst({ where: { scopeAccountId: book.id, name }, select: { id: true } })) {
        throw duplicateTag(name);
      }
      const now = ctx.clock.now();
      const row = await tx.addressBookTag.create({
        data: {
          publicId: newPublicId(),
          rootAccountId: book.rootAccountId,
          scopeAccountId: book.id,
          scopeType: book.kind,
          name,
          color,
          createdAt: now,
          updatedAt: now,
        },
      });
      return { tag: tagView(row, scope) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateTag(name);
    throw err;
  }
}
