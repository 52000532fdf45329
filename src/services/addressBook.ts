import type { Caller } from '../auth/caller.ts';
import { ApiError, invalidArgument } from '../domain/errors.ts';
import { newPublicId, PUBLIC_ID } from '../domain/ids.ts';
import { normaliseExternalDestination } from '../domain/networks.ts';
import { Prisma, type AddressBookEntryKind } from '../generated/prisma/client.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import { requirePermission, resolveAccount, type AccountRef } from './access.ts';
import { afterNewestFirst, NEWEST_FIRST, newestFirstCursor, type NewestFirstCursor, PageTokens, pageLimit, toPage } from './pageTokens.ts';
import type { RateLimiter } from './rateLimits.ts';

/**
 * Address books (spec 2.2, 2.3, 4.1): saved withdrawal and transfer destinations with
 * tags, one book per root account and one per subaccount. Entries are withdrawal
 * destinations, so changing a book needs the WITHDRAW permission; reading needs READ.
 * Entry and tag ids outside the caller's book are answered 404, never 403. Every mutation
 * is charged to ACCOUNT_ADMIN (`address_book.mutate`, spec 8) once the book is known.
 */

export const ADDRESS_BOOK_KINDS = ['EXTERNAL_CHAIN', 'INTERNAL_ACCOUNT'] as const satisfies readonly AddressBookEntryKind[];
export const ADDRESS_BOOK_LIST_DEFAULT = 200;
export const ADDRESS_BOOK_LIST_MAX = 500;
export const ENTRY_LABEL_MAX = 64;
export const ENTRY_NOTE_MAX = 256;
export const TAG_NAME_MAX = 32;
export const TAG_COLOR_MAX = 32;
export const MAX_TAGS_PER_ENTRY = 50;
export const MAX_TAGS_PER_BOOK = 200;
export const MAX_ENTRIES_PER_BOOK = 5000;

export type ScopeType = 'ROOT' | 'SUBACCOUNT';

export interface AddressBookScope {
  scopeType: ScopeType;
  rootAccountId: string;
  /** Empty for root books. */
  subaccountId: string;
}

export interface AddressBookTagView {
  tagId: string;
  scope: AddressBookScope;
  name: string;
  /** Empty when unset. */
  color: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface ExternalDestination {
  address: string;
  registryChainId: number;
}

/** The "internal destination" of spec 2.3 (field names are ours). */
export interface InternalDestination {
  /** Root account that owns the target. */
  rootAccountId: string;
  /** The target: a root account or subaccount public id. */
  accountId: string;
  accountKind: ScopeType;
  /** Empty when the target has none yet. */
  smartAccountAddress: string;
  /** Username of the target's root account; empty when it has none. */
  username: string;
  /** Label of the target subaccount; empty for a root target. */
  subaccountLabel: string;
}

export interface AddressBookEntryView {
  addressBookEntryId: string;
  scope: AddressBookScope;
  kind: AddressBookEntryKind;
  label: string;
  /** Empty when unset. */
  note: string;
  external?: ExternalDestination;
  internal?: InternalDestination;
  /** By name. */
  tags: AddressBookTagView[];
  createdAt: Date;
  updatedAt: Date;
  revision: bigint;
}

export interface CreateEntryInput {
  subaccountId?: string;
  kind: AddressBookEntryKind;
  label: string;
  note?: string;
  external?: ExternalDestination;
  internal?: { accountId: string };
  tagIds?: string[];
}

export interface UpdateEntryInput {
  subaccountId?: string;
  entryId: string;
  expectedRevision: bigint;
  label?: string;
  /** "" clears the note. */
  note?: string;
  external?: ExternalDestination;
  internal?: { accountId: string };
}

type Tx = Prisma.TransactionClient;

const TARGET_SELECT = {
  publicId: true,
  kind: true,
  label: true,
  username: true,
  smartAccountAddress: true,
  rootAccount: { select: { publicId: true, username: true } },
} satisfies Prisma.AccountSelect;

const ENTRY_INCLUDE = {
  internalAccount: { select: TARGET_SELECT },
  tags: { include: { tag: true } },
} satisfies Prisma.AddressBookEntryInclude;

type EntryRow = Prisma.AddressBookEntryGetPayload<{ include: typeof ENTRY_INCLUDE }>;
type TagRow = Prisma.AddressBookTagGetPayload<true>;

// ---------------------------------------------------------------------------------------
// Validation: the rules of spec 2.3, once.

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const NOTE_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const COLOR = /^[A-Za-z0-9#._-]*$/;

const chars = (s: string) => [...s].length;

function checkLabel(raw: string, fieldPath = 'label'): string {
  const label = raw.trim();
  if (chars(label) < 1 || chars(label) > ENTRY_LABEL_MAX) {
    throw invalidArgument(fieldPath, `must be 1 to ${ENTRY_LABEL_MAX} characters`, 'length');
  }
  if (CONTROL.test(label)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return label;
}

function checkNote(note: string, fieldPath = 'note'): string | null {
  if (chars(note) > ENTRY_NOTE_MAX) throw invalidArgument(fieldPath, `must be at most ${ENTRY_NOTE_MAX} characters`, 'length');
  if (NOTE_CONTROL.test(note)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return note === '' ? null : note;
}

function checkTagName(raw: string, fieldPath = 'name'): string {
  const name = raw.trim();
  if (chars(name) < 1 || chars(name) > TAG_NAME_MAX) {
    throw invalidArgument(fieldPath, `must be 1 to ${TAG_NAME_MAX} characters`, 'length');
  }
  if (CONTROL.test(name)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return name;
}

function checkColor(color: string, fieldPath = 'color'): string | null {
  if (color.length > TAG_COLOR_MAX || !COLOR.test(color)) {
    throw invalidArgument(
      fieldPath,
      `must be a UI color token of at most ${TAG_COLOR_MAX} letters, digits or "#._-"`,
      'color-token',
    );
  }
  return color === '' ? null : color;
}

const entryNotFound = () =>
  new ApiError('not-found', 'address-book entry not found', { code: 'ADDRESS_BOOK_ENTRY_NOT_FOUND' });
const tagNotFound = (fieldPath?: string) =>
  new ApiError('not-found', 'address-book tag not found', {
    code: 'ADDRESS_BOOK_TAG_NOT_FOUND',
    ...(fieldPath ? { violations: [{ fieldPath, message: 'no such tag in this address book', ruleId: 'exists' }] } : {}),
  });
const duplicateTag = (name: string) =>
  new ApiError('conflict', `a tag named "${name}" already exists in this address book`, {
    code: 'CONFLICT_DUPLICATE_TAG',
    violations: [{ fieldPath: 'name', message: 'is already used by another tag of this book', ruleId: 'unique' }],
  });

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

// ---------------------------------------------------------------------------------------
// Rendering.

function scopeOf(book: AccountRef, rootPublicId: string): AddressBookScope {
  return book.kind === 'ROOT'
    ? { scopeType: 'ROOT', rootAccountId: rootPublicId, subaccountId: '' }
    : { scopeType: 'SUBACCOUNT', rootAccountId: rootPublicId, subaccountId: book.publicId };
}

function tagView(row: TagRow, scope: AddressBookScope): AddressBookTagView {
  return { tagId: row.publicId, scope, name: row.name, color: row.color ?? '', createdAt: row.createdAt, updatedAt: row.updatedAt };
}

function internalView(target: NonNullable<EntryRow['internalAccount']>): InternalDestination {
  const isSub = target.kind === 'SUBACCOUNT';
  const root = isSub ? target.rootAccount : target;
  return {
    rootAccountId: root?.publicId ?? '',
    accountId: target.publicId,
    accountKind: isSub ? 'SUBACCOUNT' : 'ROOT',
    smartAccountAddress: target.smartAccountAddress ?? '',
    username: root?.username ?? '',
    subaccountLabel: isSub ? (target.label ?? '') : '',
  };
}

function entryView(row: EntryRow, scope: AddressBookScope): AddressBookEntryView {
  const tags = row.tags
    .map((t) => tagView(t.tag, scope))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.tagId < b.tagId ? -1 : 1));
  return {
    addressBookEntryId: row.publicId,
    scope,
    kind: row.kind,
    label: row.label,
    note: row.note ?? '',
    ...(row.kind === 'EXTERNAL_CHAIN' && row.externalAddress !== null && row.externalRegistryChainId !== null
      ? { external: { address: row.externalAddress, registryChainId: row.externalRegistryChainId } }
      : {}),
    ...(row.kind === 'INTERNAL_ACCOUNT' && row.internalAccount ? { internal: internalView(row.internalAccount) } : {}),
    tags,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    revision: row.revision,
  };
}

// ---------------------------------------------------------------------------------------

export function createAddressBookService(deps: {
  db: Db;
  clock: Clock;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
}) {
  const { db, clock, pageTokens, limiter } = deps;

  /**
   * Serialises the mutations of one book, so per-book and per-entry counts and name
   * uniqueness hold under concurrency. An advisory lock blocks nothing else (a row lock on
   * the account would also hold up foreign-key checks of unrelated tables).
   */
  async function lockBook(tx: Tx, book: AccountRef): Promise<void> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`address-book:${book.id}`}, 0))`;
  }

  function transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return db.$transaction(fn);
  }

  async function findEntry(tx: Tx | Db, book: AccountRef, entryId: string): Promise<EntryRow> {
    if (!PUBLIC_ID.test(entryId)) throw entryNotFound();
    const row = await tx.addressBookEntry.findFirst({
      where: { publicId: entryId, scopeAccountId: book.id },
      include: ENTRY_INCLUDE,
    });
    if (!row) throw entryNotFound();
    return row;
  }

  async function findTag(tx: Tx | Db, book: AccountRef, tagId: string, fieldPath?: string): Promise<TagRow> {
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
  async function resolveTarget(tx: Tx, accountId: string, fieldPath = 'internal.accountId'): Promise<bigint> {
    const unknown = () => invalidArgument(fieldPath, 'is not an account that can receive transfers', 'unknown-account');
    if (!PUBLIC_ID.test(accountId)) throw unknown();
    const target = await tx.account.findFirst({
      where: { publicId: accountId, kind: { in: ['ROOT', 'SUBACCOUNT'] }, status: 'ACTIVE' },
      select: { id: true },
    });
    if (!target) throw unknown();
    return target.id;
  }

  async function reload(tx: Tx, id: bigint, scope: AddressBookScope): Promise<AddressBookEntryView> {
    const row = await tx.addressBookEntry.findUniqueOrThrow({ where: { id }, include: ENTRY_INCLUDE });
    return entryView(row, scope);
  }

  /** Reads need READ; the book is the root's, or the subaccount's when one is named. */
  async function readBook(caller: Caller, subaccountId: string | undefined) {
    requirePermission(caller, 'READ');
    const book = await resolveAccount(db, caller, subaccountId);
    return { book, scope: scopeOf(book, caller.rootPublicId) };
  }

  /** Entries are withdrawal destinations: changing a book needs WITHDRAW. */
  async function writeBook(caller: Caller, subaccountId: string | undefined) {
    requirePermission(caller, 'WITHDRAW');
    const book = await resolveAccount(db, caller, subaccountId);
    await limiter.admit('address_book.mutate', { caller, account: book });
    return { book, scope: scopeOf(book, caller.rootPublicId) };
  }

  return {
    /** Newest created first; the page token is bound to the caller, the book and `kind`. */
    async listAddressBookEntries(
      caller: Caller,
      input: { subaccountId?: string; kind?: AddressBookEntryKind; limit?: number; pageToken?: string },
    ) {
      const { book, scope } = await readBook(caller, input.subaccountId);
      const limit = pageLimit(input.limit, ADDRESS_BOOK_LIST_MAX, ADDRESS_BOOK_LIST_DEFAULT);
      const binding = {
        operation: 'listAddressBookEntries',
        caller: caller.rootPublicId,
        filters: { book: book.id, kind: input.kind ?? null, order: 'createdAt desc' },
      };
      const cursor = pageTokens.decode<NewestFirstCursor>(input.pageToken, binding);
      const rows = await db.addressBookEntry.findMany({
        where: {
          scopeAccountId: book.id,
          ...(input.kind ? { kind: input.kind } : {}),
          ...afterNewestFirst(cursor),
        },
        include: ENTRY_INCLUDE,
        orderBy: NEWEST_FIRST,
        take: limit + 1,
      });
      const page = toPage(rows, limit, pageTokens, binding, newestFirstCursor);
      return { entries: page.items.map((r) => entryView(r, scope)), nextPageToken: page.nextPageToken };
    },

    async getAddressBookEntry(caller: Caller, input: { subaccountId?: string; entryId: string }) {
      const { book, scope } = await readBook(caller, input.subaccountId);
      return { entry: entryView(await findEntry(db, book, input.entryId), scope) };
    },

    async createAddressBookEntry(caller: Caller, input: CreateEntryInput) {
      const { book, scope } = await writeBook(caller, input.subaccountId);
      const label = checkLabel(input.label);
      const note = checkNote(input.note ?? '');
      let destination:
        | { externalAddress: string; externalRegistryChainId: number }
        | { internalAccountId: string };
      switch (input.kind) {
        case 'EXTERNAL_CHAIN': {
          if (input.internal) throw invalidArgument('internal', 'must be absent for EXTERNAL_CHAIN entries', 'kind-mismatch');
          if (!input.external) throw invalidArgument('external', 'is required for EXTERNAL_CHAIN entries', 'required');
          const ext = normaliseExternalDestination(input.external);
          destination = { externalAddress: ext.address, externalRegistryChainId: ext.registryChainId };
          break;
        }
        case 'INTERNAL_ACCOUNT': {
          if (input.external) throw invalidArgument('external', 'must be absent for INTERNAL_ACCOUNT entries', 'kind-mismatch');
          if (!input.internal) throw invalidArgument('internal', 'is required for INTERNAL_ACCOUNT entries', 'required');
          destination = { internalAccountId: input.internal.accountId };
          break;
        }
        default:
          throw invalidArgument('kind', `must be one of ${ADDRESS_BOOK_KINDS.join(', ')}`, 'enum');
      }
      const tagIds = [...new Set(input.tagIds ?? [])];
      if (tagIds.length > MAX_TAGS_PER_ENTRY) {
        throw invalidArgument('tagIds', `an entry may have at most ${MAX_TAGS_PER_ENTRY} tags`, 'max-tags');
      }

      return transaction(async (tx) => {
        await lockBook(tx, book);
        const count = await tx.addressBookEntry.count({ where: { scopeAccountId: book.id } });
        if (count >= MAX_ENTRIES_PER_BOOK) {
          throw invalidArgument('label', `an address book holds at most ${MAX_ENTRIES_PER_BOOK} entries`, 'max-entries');
        }
        const tags: TagRow[] = [];
        for (const [i, tagId] of tagIds.entries()) tags.push(await findTag(tx, book, tagId, `tagIds[${i}]`));
        const internalAccountId =
          'internalAccountId' in destination ? await resolveTarget(tx, destination.internalAccountId) : undefined;
        const now = clock.now();
        const row = await tx.addressBookEntry.create({
          data: {
            publicId: newPublicId(),
            rootAccountId: book.rootAccountId,
            scopeAccountId: book.id,
            scopeType: book.kind,
            kind: input.kind,
            label,
            note,
            ...('externalAddress' in destination ? destination : { internalAccountId: internalAccountId ?? null }),
            createdAt: now,
            updatedAt: now,
            revision: 1n,
            tags: { create: tags.map((t) => ({ tagId: t.id, createdAt: now })) },
          },
          select: { id: true },
        });
        return { entry: await reload(tx, row.id, scope) };
      });
    },

    /**
     * Conditional on `expectedRevision`: a stale one changes nothing and is 409
     * `CONFLICT_STALE_REVISION`. An update that changes nothing keeps revision and
     * updatedAt as they are.
     */
    async updateAddressBookEntry(caller: Caller, input: UpdateEntryInput) {
      const { book, scope } = await writeBook(caller, input.subaccountId);
      const label = input.label === undefined ? undefined : checkLabel(input.label);
      const note = input.note === undefined ? undefined : checkNote(input.note);
      const external = input.external === undefined ? undefined : normaliseExternalDestination(input.external);

      return transaction(async (tx) => {
        await lockBook(tx, book);
        const current = await findEntry(tx, book, input.entryId);
        const stale = () =>
          new ApiError('conflict', `the entry is at revision ${current.revision}, not ${input.expectedRevision}`, {
            code: 'CONFLICT_STALE_REVISION',
            violations: [{ fieldPath: 'expectedRevision', message: 'is not the current revision', ruleId: 'stale-revision' }],
          });
        if (current.revision !== input.expectedRevision) throw stale();
        if (external && current.kind !== 'EXTERNAL_CHAIN') {
          throw invalidArgument('external', `cannot be set on a ${current.kind} entry`, 'kind-mismatch');
        }
        if (input.internal && current.kind !== 'INTERNAL_ACCOUNT') {
          throw invalidArgument('internal', `cannot be set on a ${current.kind} entry`, 'kind-mismatch');
        }
        const internalAccountId = input.internal ? await resolveTarget(tx, input.internal.accountId) : undefined;

        const data: Prisma.AddressBookEntryUncheckedUpdateManyInput = {};
        if (label !== undefined && label !== current.label) data.label = label;
        if (note !== undefined && note !== current.note) data.note = note;
        if (external && (external.address !== current.externalAddress || external.registryChainId !== current.externalRegistryChainId)) {
          data.externalAddress = external.address;
          data.externalRegistryChainId = external.registryChainId;
        }
        if (internalAccountId !== undefined && internalAccountId !== current.internalAccountId) {
          data.internalAccountId = internalAccountId;
        }
        if (Object.keys(data).length === 0) return { entry: entryView(current, scope) };

        const updated = await tx.addressBookEntry.updateMany({
          where: { id: current.id, revision: input.expectedRevision },
          data: { ...data, updatedAt: clock.now(), revision: { increment: 1 } },
        });
        if (updated.count !== 1) throw stale();
        return { entry: await reload(tx, current.id, scope) };
      });
    },

    /** `expectedRevision`, when given, makes the delete conditional like an update. */
    async deleteAddressBookEntry(caller: Caller, input: { subaccountId?: string; entryId: string; expectedRevision?: bigint }) {
      const { book } = await writeBook(caller, input.subaccountId);
      return transaction(async (tx) => {
        await lockBook(tx, book);
        const current = await findEntry(tx, book, input.entryId);
        const where: Prisma.AddressBookEntryWhereInput = { id: current.id };
        if (input.expectedRevision !== undefined) where.revision = input.expectedRevision;
        const deleted = await tx.addressBookEntry.deleteMany({ where });
        if (deleted.count !== 1) {
          throw new ApiError('conflict', `the entry is at revision ${current.revision}, not ${input.expectedRevision}`, {
            code: 'CONFLICT_STALE_REVISION',
            violations: [{ fieldPath: 'expectedRevision', message: 'is not the current revision', ruleId: 'stale-revision' }],
          });
        }
        return {};
      });
    },

    /** Every tag of the book (at most MAX_TAGS_PER_BOOK), by name. */
    async listAddressBookTags(caller: Caller, input: { subaccountId?: string }) {
      const { book, scope } = await readBook(caller, input.subaccountId);
      const rows = await db.addressBookTag.findMany({
        where: { scopeAccountId: book.id },
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        take: MAX_TAGS_PER_BOOK,
      });
      return { tags: rows.map((r) => tagView(r, scope)) };
    },

    async createAddressBookTag(caller: Caller, input: { subaccountId?: string; name: string; color?: string }) {
      const { book, scope } = await writeBook(caller, input.subaccountId);
      const name = checkTagName(input.name);
      const color = checkColor(input.color ?? '');
      try {
        return await transaction(async (tx) => {
          await lockBook(tx, book);
          const count = await tx.addressBookTag.count({ where: { scopeAccountId: book.id } });
          if (count >= MAX_TAGS_PER_BOOK) {
            throw invalidArgument('name', `an address book holds at most ${MAX_TAGS_PER_BOOK} tags`, 'max-tags');
          }
          if (await tx.addressBookTag.findFirst({ where: { scopeAccountId: book.id, name }, select: { id: true } })) {
            throw duplicateTag(name);
          }
          const now = clock.now();
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
    },

    /** Name and/or color; "" clears the color. Entries keep their revision. */
    async renameAddressBookTag(caller: Caller, input: { subaccountId?: string; tagId: string; name?: string; color?: string }) {
      const { book, scope } = await writeBook(caller, input.subaccountId);
      const name = input.name === undefined ? undefined : checkTagName(input.name);
      const color = input.color === undefined ? undefined : checkColor(input.color);
      try {
        return await transaction(async (tx) => {
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
          const row = await tx.addressBookTag.update({ where: { id: current.id }, data: { ...data, updatedAt: clock.now() } });
          return { tag: tagView(row, scope) };
        });
      } catch (err) {
        if (isUniqueViolation(err) && name !== undefined) throw duplicateTag(name);
        throw err;
      }
    },

    /** Removes the tag from every entry it was on; those entries get a new revision. */
    async deleteAddressBookTag(caller: Caller, input: { subaccountId?: string; tagId: string }) {
      const { book } = await writeBook(caller, input.subaccountId);
      return transaction(async (tx) => {
        await lockBook(tx, book);
        const tag = await findTag(tx, book, input.tagId);
        await tx.addressBookEntry.updateMany({
          where: { scopeAccountId: book.id, tags: { some: { tagId: tag.id } } },
          data: { updatedAt: clock.now(), revision: { increment: 1 } },
        });
        await tx.addressBookTag.delete({ where: { id: tag.id } });
        return {};
      });
    },

    /** Idempotent: tagging an entry that already has the tag changes nothing. */
    async tagAddressBookEntry(caller: Caller, input: { subaccountId?: string; entryId: string; tagId: string }) {
      const { book, scope } = await writeBook(caller, input.subaccountId);
      return transaction(async (tx) => {
        await lockBook(tx, book);
        const entry = await findEntry(tx, book, input.entryId);
        const tag = await findTag(tx, book, input.tagId, 'tagId');
        if (entry.tags.some((t) => t.tagId === tag.id)) return { entry: entryView(entry, scope) };
        if (entry.tags.length >= MAX_TAGS_PER_ENTRY) {
          throw invalidArgument('tagId', `an entry may have at most ${MAX_TAGS_PER_ENTRY} tags`, 'max-tags');
        }
        const now = clock.now();
        await tx.addressBookEntryTag.create({ data: { entryId: entry.id, tagId: tag.id, createdAt: now } });
        await tx.addressBookEntry.update({ where: { id: entry.id }, data: { updatedAt: now, revision: { increment: 1 } } });
        return { entry: await reload(tx, entry.id, scope) };
      });
    },

    /** Idempotent: untagging an entry that does not have the tag changes nothing. */
    async untagAddressBookEntry(caller: Caller, input: { subaccountId?: string; entryId: string; tagId: string }) {
      const { book, scope } = await writeBook(caller, input.subaccountId);
      return transaction(async (tx) => {
        await lockBook(tx, book);
        const entry = await findEntry(tx, book, input.entryId);
        const tag = await findTag(tx, book, input.tagId, 'tagId');
        if (!entry.tags.some((t) => t.tagId === tag.id)) return { entry: entryView(entry, scope) };
        await tx.addressBookEntryTag.delete({ where: { entryId_tagId: { entryId: entry.id, tagId: tag.id } } });
        await tx.addressBookEntry.update({ where: { id: entry.id }, data: { updatedAt: clock.now(), revision: { increment: 1 } } });
        return { entry: await reload(tx, entry.id, scope) };
      });
    },
  };
}

export type AddressBookService = ReturnType<typeof createAddressBookService>;
