import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { findTag, lockBook, writeBook } from './book.ts';
import { checkColor, checkTagName, duplicateTag, isUniqueViolation } from './checks.ts';
import type { AddressBookContext } from './context.ts';
import { tagView } from './views.ts';

/** Name and/or color; "" clears the color. Entries keep their revision. */
export async function renameAddressBookTag(ctx: AddressBookContext, caller: Caller, input: { subaccountId?: string; tagId: string; name?: string; color?: string }) {
  const { book, scope } = await writeBook(ctx, caller, input.subaccountId);
  const name = input.name === undefined ? undefined : checkTagName(input.name);
  const color = input.color === undefined ? undefined : checkColor(input.color);
  try {
    return await ctx.db.$transaction(async (tx) => {
      await lockBook(tx, book);
      const current = await findTag(tx, book, input.tagId);
      const data: Prisma.AddressBookTagUpdateInput = {};
      if (name !== undefined && name !== current.name) {
        const clash = await tx.addressBookTag.findFirst({ where: { scopeAccountId: book.id, name }, select: { id: true } });
        if (clash) throw duplicateTag(name);
        data.name = name;
      }
      if (color !== undefined && color !== current.color) data.color = color;
      if (Object.keys(data).length === 0) return { tag: tagView(current, scope) };
      const row = await tx.addressBookTag.update({ where: { id: current.id }, data: { ...data, updatedAt: ctx.clock.now() } });
      return { tag: tagView(row, scope) };
    });
  } catch (err) {
    if (isUniqueViolation(err) && name !== undefined) throw duplicateTag(name);
    throw err;
  }
}
