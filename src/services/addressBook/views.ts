import type { AddressBookEntryKind, Prisma } from '../../generated/prisma/client.ts';
import type { AccountRef } from '../access.ts';

/** Entries and tags as the transports render them, and the rows they are read from. */

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

const TARGET_SELECT = {
  publicId: true,
  kind: true,
  label: true,
  username: true,
  smartAccountAddress: true,
  rootAccount: { select: { publicId: true, username: true } },
} satisfies Prisma.AccountSelect;

export const ENTRY_INCLUDE = {
  internalAccount: { select: TARGET_SELECT },
  tags: { include: { tag: true } },
} satisfies Prisma.AddressBookEntryInclude;

export type EntryRow = Prisma.AddressBookEntryGetPayload<{ include: typeof ENTRY_INCLUDE }>;
export type TagRow = Prisma.AddressBookTagGetPayload<true>;

export function scopeOf(book: AccountRef, rootPublicId: string): AddressBookScope {
  return book.kind === 'ROOT'
    ? { scopeType: 'ROOT', rootAccountId: rootPublicId, subaccountId: '' }
    : { scopeType: 'SUBACCOUNT', rootAccountId: rootPublicId, subaccountId: book.publicId };
}

export function tagView(row: TagRow, scope: AddressBookScope): AddressBookTagView {
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

export function entryView(row: EntryRow, scope: AddressBookScope): AddressBookEntryView {
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
