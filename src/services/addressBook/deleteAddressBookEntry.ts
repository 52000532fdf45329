import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { findEntry, lockBook, writeBook } from './book.ts';
import { staleRevision } from './checks.ts';
import type { AddressBookContext } from './context.ts';

/** `expectedRevision`, when given, makes the delete conditional like an update. */
export async function deleteAddressBookEntry(ctx: AddressBookContext, caller: Caller, input: { subaccountId?: string; entryId: string; expectedRevision?: bigint }) {
  const { book } = await writeBook(ctx, caller, input.subaccountId);
  return ctx.db.$transaction(async (tx) => {
    await lockBook(tx, book);
    const current = await findEntry(tx, book, input.entryId);
    const where: Prisma.AddressBookEntryWhereInput = { id: current.id };
    if (input.expectedRevision !== undefined) where.revision = input.expectedRevision;
    const deleted = await tx.addressBookEntry.deleteMany({ where });
    if (deleted.count !== 1) throw staleRevision(current.revision, input.expectedRevision);
    return {};
  });
}
