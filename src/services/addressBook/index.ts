import type { Caller } from '../../auth/caller.ts';
import type { AddressBookContext } from './context.ts';
import { listAddressBookEntries } from './listAddressBookEntries.ts';
import { getAddressBookEntry } from './getAddressBookEntry.ts';
import { createAddressBookEntry } from './createAddressBookEntry.ts';
import { updateAddressBookEntry } from './updateAddressBookEntry.ts';
import { deleteAddressBookEntry } from './deleteAddressBookEntry.ts';
import { tagAddressBookEntry } from './tagAddressBookEntry.ts';
import { untagAddressBookEntry } from './untagAddressBookEntry.ts';
import { listAddressBookTags } from './listAddressBookTags.ts';
import { createAddressBookTag } from './createAddressBookTag.ts';
import { renameAddressBookTag } from './renameAddressBookTag.ts';
import { deleteAddressBookTag } from './deleteAddressBookTag.ts';

/**
 * Address books (spec 2.2, 2.3, 4.1): saved withdrawal and transfer destinations with
 * tags, one book per root account and one per subaccount. Entries are withdrawal
 * destinations, so changing a book needs the WITHDRAW permission; reading needs READ.
 * Entry and tag ids outside the caller's book are answered 404, never 403. Every mutation
 * is charged to ACCOUNT_ADMIN (`address_book.mutate`, spec 8) once the book is known.
 */

export type { AddressBookContext } from './context.ts';
export type { AddressBookEntryView, AddressBookScope, AddressBookTagView, ExternalDestination, InternalDestination, ScopeType } from './views.ts';
export type { CreateEntryInput } from './createAddressBookEntry.ts';
export type { UpdateEntryInput } from './updateAddressBookEntry.ts';
export { ADDRESS_BOOK_KINDS } from './inputs.ts';
export { ADDRESS_BOOK_LIST_DEFAULT, ADDRESS_BOOK_LIST_MAX } from './listAddressBookEntries.schema.ts';
export { ENTRY_LABEL_MAX, ENTRY_NOTE_MAX, MAX_ENTRIES_PER_BOOK, MAX_TAGS_PER_ENTRY } from './createAddressBookEntry.schema.ts';
export { MAX_TAGS_PER_BOOK, TAG_COLOR_MAX, TAG_NAME_MAX } from './createAddressBookTag.schema.ts';

/** The address-book operations, keyed by their operationId. */
export function createAddressBookService(ctx: AddressBookContext) {
  return {
    listAddressBookEntries: (caller: Caller, input: Parameters<typeof listAddressBookEntries>[2]) => listAddressBookEntries(ctx, caller, input),
    getAddressBookEntry: (caller: Caller, input: Parameters<typeof getAddressBookEntry>[2]) => getAddressBookEntry(ctx, caller, input),
    createAddressBookEntry: (caller: Caller, input: Parameters<typeof createAddressBookEntry>[2]) => createAddressBookEntry(ctx, caller, input),
    updateAddressBookEntry: (caller: Caller, input: Parameters<typeof updateAddressBookEntry>[2]) => updateAddressBookEntry(ctx, caller, input),
    deleteAddressBookEntry: (caller: Caller, input: Parameters<typeof deleteAddressBookEntry>[2]) => deleteAddressBookEntry(ctx, caller, input),
    tagAddressBookEntry: (caller: Caller, input: Parameters<typeof tagAddressBookEntry>[2]) => tagAddressBookEntry(ctx, caller, input),
    untagAddressBookEntry: (caller: Caller, input: Parameters<typeof untagAddressBookEntry>[2]) => untagAddressBookEntry(ctx, caller, input),
    listAddressBookTags: (caller: Caller, input: Parameters<typeof listAddressBookTags>[2]) => listAddressBookTags(ctx, caller, input),
    createAddressBookTag: (caller: Caller, input: Parameters<typeof createAddressBookTag>[2]) => createAddressBookTag(ctx, caller, input),
    renameAddressBookTag: (caller: Caller, input: Parameters<typeof renameAddressBookTag>[2]) => renameAddressBookTag(ctx, caller, input),
    deleteAddressBookTag: (caller: Caller, input: Parameters<typeof deleteAddressBookTag>[2]) => deleteAddressBookTag(ctx, caller, input),
  };
}

export type AddressBookService = ReturnType<typeof createAddressBookService>;
