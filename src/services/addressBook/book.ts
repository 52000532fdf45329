import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { PUBLIC_ID } from '../../domain/ids.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../infra/database.ts';
import { requirePermission, resolveAccount, type AccountRef } from '../access.ts';
import { entryNotFound, tagNotFound } from './checks.ts';
import type { AddressBookContext } from './context.ts';
import { ENTRY_INCLUDE, entryView, scopeOf, type AddressBookEntryView, type AddressBookScope, type EntryRow, type TagRow } from './views.ts';

/**
 * The book an operation works on, and the reads inside it. Entry and tag ids outside the
 * caller's book are answered 404, never 403.
 */

export type Tx = Prisma.TransactionClient;

/** Reads need READ; the book is the root's, or the subaccount's when one is named. */
export async function readBook(ctx: AddressBookContext, caller: Caller, subaccountId: string | undefined) {
  requirePermission(caller, 'READ');
  const book = await resolveAccount(ctx.db, caller, subaccountId);
  return { book, scope: scopeOf(book, caller.rootPublicId) };
}

/** Entries are withdrawal destinations: changing a book needs WITHDRAW, and is charged to ACCOUNT_ADMIN once the book is known. */
export async function writeBook(ctx: AddressBookContext, caller: Caller, subaccountId: string | undefined) {
  requirePermission(caller, 'WITHDRAW');
  const book = await resolveAccount(ctx.db, caller, subaccountId);
  await ctx.limiter.admit('address_book.mutate', { caller, account: book });
  return { book, scope: scopeOf(book, caller.rootPublicId) };
}

/**
 * Serialises the mutations of one book, so per-book and per-entry counts and name
 * uniqueness hold under concurrency. An advisory lock blocks nothing else (a row lock on
 * the account would also hold up foreign-key checks of unrelated tables).
 */
export async function lockBook(tx: Tx, book: AccountRef): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`address-book:${book.id}`}, 0))`;
}

export async function findEntry(tx: Tx | Db, book: AccountRef, entryId: string): Promise<EntryRow> {
  if (!PUBLIC_ID.test(entryId)) throw entryNotFound();
  const row = await tx.addressBookEntry.findFirst({
    where: { publicId: entryId, scopeAccountId: book.id },
    include: ENTRY_INCLUDE,
  });
  if (!row) throw entryNotFound();
  return row;
}

export async function findTag(tx: Tx | Db, book: AccountRef, tagId: string, fieldPath?: string): Promise<TagRow> {
  if (!PUBLIC_ID.test(tagId)) throw tagNotFound(fieldPath);
  const row = await tx.addressBookTag.findFirst({ where: { publicId: tagId, scopeAccountId: book.id } });
  if (!row) throw tagNotFound(fieldPath);
  return row;
}

/**
 * The account an internal destination names: any user's root account or subaccount.
 * Unknown, system and inactive accounts are all answered the same way, so the answer
 * says nothing about an account's state.
 */
export async function resolveTarget(tx: Tx, accountId: string, fieldPath = 'internal.accountId'): Promise<bigint> {
  const unknown = () => invalidArgument(fieldPath, 'is not an account that can receive transfers', 'unknown-account');
  if (!PUBLIC_ID.test(accountId)) throw unknown();
  const target = await tx.account.findFirst({
    where: { publicId: accountId, kind: { in: ['ROOT', 'SUBACCOUNT'] }, status: 'ACTIVE' },
    select: { id: true },
  });
  if (!target) throw unknown();
  return target.id;
}

export async function reload(tx: Tx, id: bigint, scope: AddressBookScope): Promise<AddressBookEntryView> {
  const row = await tx.addressBookEntry.findUniqueOrThrow({ where: { id }, include: ENTRY_INCLUDE });
  return entryView(row, scope);
}
