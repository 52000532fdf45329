import {
  ADDRESS_BOOK_KINDS,
  ADDRESS_BOOK_LIST_DEFAULT,
  type AddressBookEntryView,
  type AddressBookScope,
  type AddressBookTagView,
  type ExternalDestination,
  type InternalDestination,
} from '../../../services/addressBook/index.ts';
import { createAddressBookEntryBody } from '../../../services/addressBook/createAddressBookEntry.schema.ts';
import { createAddressBookTagBody } from '../../../services/addressBook/createAddressBookTag.schema.ts';
import { deleteAddressBookEntryParams, deleteAddressBookEntryQuery } from '../../../services/addressBook/deleteAddressBookEntry.schema.ts';
import { deleteAddressBookTagParams, deleteAddressBookTagQuery } from '../../../services/addressBook/deleteAddressBookTag.schema.ts';
import { getAddressBookEntryParams, getAddressBookEntryQuery } from '../../../services/addressBook/getAddressBookEntry.schema.ts';
import { listAddressBookEntriesQuery } from '../../../services/addressBook/listAddressBookEntries.schema.ts';
import { listAddressBookTagsQuery } from '../../../services/addressBook/listAddressBookTags.schema.ts';
import { renameAddressBookTagBody, renameAddressBookTagParams } from '../../../services/addressBook/renameAddressBookTag.schema.ts';
import { tagAddressBookEntryBody, tagAddressBookEntryParams } from '../../../services/addressBook/tagAddressBookEntry.schema.ts';
import { untagAddressBookEntryParams, untagAddressBookEntryQuery } from '../../../services/addressBook/untagAddressBookEntry.schema.ts';
import { updateAddressBookEntryBody, updateAddressBookEntryParams } from '../../../services/addressBook/updateAddressBookEntry.schema.ts';
import { builder } from '../builder.ts';
import { callerOf, connectionFromPage } from '../connections.ts';
import { parseArgs } from '../validate.ts';
import { ViewerRef } from './viewer.ts';

/**
 * Address book over GraphQL: the same service calls as /v1 (routes/addressBook.ts), the
 * same field names, validated by the same input schemas
 * (services/addressBook/<op>.schema.ts), no rules of its own. Nulls of optional inputs
 * mean "not given".
 */

const EntryKind = builder.enumType('AddressBookEntryKind', { values: ADDRESS_BOOK_KINDS });
const ScopeType = builder.enumType('AddressBookScopeType', { values: ['ROOT', 'SUBACCOUNT'] as const });
const AccountKind = builder.enumType('AddressBookAccountKind', {
  description: 'Whether an internal destination is a root account or a subaccount',
  values: ['ROOT', 'SUBACCOUNT'] as const,
});

const Scope = builder.objectRef<AddressBookScope>('AddressBookScope').implement({
  description: 'The book an entry or tag belongs to (spec 2.2)',
  fields: (t) => ({
    scopeType: t.field({ type: ScopeType, resolve: (s) => s.scopeType }),
    rootAccountId: t.exposeString('rootAccountId'),
    subaccountId: t.exposeString('subaccountId', { description: 'Empty for root books' }),
  }),
});

const Tag = builder.objectRef<AddressBookTagView>('AddressBookTag').implement({
  fields: (t) => ({
    tagId: t.exposeString('tagId'),
    scope: t.field({ type: Scope, resolve: (v) => v.scope }),
    name: t.exposeString('name'),
    color: t.exposeString('color', { description: 'UI color token; empty when unset' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const External = builder.objectRef<ExternalDestination>('AddressBookExternalDestination').implement({
  fields: (t) => ({
    address: t.exposeString('address', { description: 'EIP-55 checksum form for EVM networks' }),
    registryChainId: t.exposeInt('registryChainId'),
  }),
});

const Internal = builder.objectRef<InternalDestination>('AddressBookInternalDestination').implement({
  description: 'An account of the platform (any user) as a destination',
  fields: (t) => ({
    rootAccountId: t.exposeString('rootAccountId', { description: 'Root account that owns the target' }),
    accountId: t.exposeString('accountId', { description: 'The target root account or subaccount' }),
    accountKind: t.field({ type: AccountKind, resolve: (d) => d.accountKind }),
    smartAccountAddress: t.exposeString('smartAccountAddress', { description: 'Empty when none' }),
    username: t.exposeString('username', { description: "The target root account's username; empty when none" }),
    subaccountLabel: t.exposeString('subaccountLabel', { description: 'Empty for a root account' }),
  }),
});

const Entry = builder.objectRef<AddressBookEntryView>('AddressBookEntry').implement({
  description: 'A saved withdrawal or transfer destination (spec 2.3)',
  fields: (t) => ({
    addressBookEntryId: t.exposeString('addressBookEntryId'),
    scope: t.field({ type: Scope, resolve: (e) => e.scope }),
    kind: t.field({ type: EntryKind, resolve: (e) => e.kind }),
    label: t.exposeString('label'),
    note: t.exposeString('note', { description: 'Empty when unset' }),
    external: t.field({ type: External, nullable: true, resolve: (e) => e.external ?? null }),
    internal: t.field({ type: Internal, nullable: true, resolve: (e) => e.internal ?? null }),
    tags: t.field({ type: [Tag], resolve: (e) => e.tags }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    revision: t.field({ type: 'Int64', resolve: (e) => e.revision }),
  }),
});

builder.objectFields(ViewerRef, (t) => ({
  addressBook: t.connection(
    {
      type: Entry,
      description: 'Entries of the root book, or of a subaccount book; newest created first',
      args: {
        subaccountId: t.arg.string({ description: 'Omit for the root account book' }),
        kind: t.arg({ type: EntryKind }),
      },
      resolve: (caller, args, ctx) => {
        const filters = parseArgs(listAddressBookEntriesQuery, { subaccountId: args.subaccountId, kind: args.kind });
        return connectionFromPage(args, ADDRESS_BOOK_LIST_DEFAULT, async (page) => {
          const r = await ctx.services.addressBook.listAddressBookEntries(caller, { ...page, ...filters });
          return { items: r.entries, nextPageToken: r.nextPageToken };
        });
      },
    },
    { name: 'AddressBookEntryConnection' },
    { name: 'AddressBookEntryEdge' },
  ),
  addressBookEntry: t.field({
    type: Entry,
    args: { addressBookEntryId: t.arg.string({ required: true }), subaccountId: t.arg.string() },
    resolve: async (caller, args, ctx) =>
      (
        await ctx.services.addressBook.getAddressBookEntry(caller, {
          ...parseArgs(getAddressBookEntryParams, { entryId: args.addressBookEntryId }),
          ...parseArgs(getAddressBookEntryQuery, { subaccountId: args.subaccountId }),
        })
      ).entry,
  }),
  addressBookTags: t.field({
    type: [Tag],
    description: 'Every tag of the book, by name',
    args: { subaccountId: t.arg.string() },
    resolve: async (caller, args, ctx) => (await ctx.services.addressBook.listAddressBookTags(caller, parseArgs(listAddressBookTagsQuery, args))).tags,
  }),
}));

const ExternalInput = builder.inputType('AddressBookExternalDestinationInput', {
  fields: (t) => ({
    address: t.string({ required: true }),
    registryChainId: t.int({ required: true }),
  }),
});

const InternalInput = builder.inputType('AddressBookInternalDestinationInput', {
  fields: (t) => ({
    accountId: t.string({ required: true, description: 'A root account or subaccount id of any user' }),
  }),
});

const CreateEntryInput = builder.inputType('CreateAddressBookEntryInput', {
  fields: (t) => ({
    subaccountId: t.string({ description: 'Omit for the root account book' }),
    kind: t.field({ type: EntryKind, required: true }),
    label: t.string({ required: true }),
    note: t.string(),
    external: t.field({ type: ExternalInput, description: 'Required for EXTERNAL_CHAIN' }),
    internal: t.field({ type: InternalInput, description: 'Required for INTERNAL_ACCOUNT' }),
    tagIds: t.stringList({ description: 'Tags of the same book to put on the entry' }),
  }),
});

const UpdateEntryInput = builder.inputType('UpdateAddressBookEntryInput', {
  fields: (t) => ({
    subaccountId: t.string(),
    expectedRevision: t.field({ type: 'Int64', required: true }),
    label: t.string(),
    note: t.string({ description: 'Empty clears the note' }),
    external: t.field({ type: ExternalInput }),
    internal: t.field({ type: InternalInput }),
  }),
});

const CreateTagInput = builder.inputType('CreateAddressBookTagInput', {
  fields: (t) => ({
    subaccountId: t.string(),
    name: t.string({ required: true }),
    color: t.string(),
  }),
});

const RenameTagInput = builder.inputType('RenameAddressBookTagInput', {
  fields: (t) => ({
    subaccountId: t.string(),
    name: t.string(),
    color: t.string({ description: 'Empty clears the color' }),
  }),
});

builder.mutationFields((t) => ({
  createAddressBookEntry: t.field({
    type: Entry,
    args: { input: t.arg({ type: CreateEntryInput, required: true }) },
    resolve: async (_root, { input }, ctx) =>
      (await ctx.services.addressBook.createAddressBookEntry(callerOf(ctx), parseArgs(createAddressBookEntryBody, input))).entry,
  }),
  updateAddressBookEntry: t.field({
    type: Entry,
    description: 'Changes the entry if it is still at expectedRevision (else CONFLICT_STALE_REVISION)',
    args: { addressBookEntryId: t.arg.string({ required: true }), input: t.arg({ type: UpdateEntryInput, required: true }) },
    resolve: async (_root, { addressBookEntryId, input }, ctx) =>
      (
        await ctx.services.addressBook.updateAddressBookEntry(callerOf(ctx), {
          ...parseArgs(updateAddressBookEntryBody, input),
          ...parseArgs(updateAddressBookEntryParams, { entryId: addressBookEntryId }),
        })
      ).entry,
  }),
  deleteAddressBookEntry: t.string({
    description: 'The id of the deleted entry',
    args: {
      addressBookEntryId: t.arg.string({ required: true }),
      subaccountId: t.arg.string(),
      expectedRevision: t.arg({ type: 'Int64', description: 'Makes the delete conditional' }),
    },
    resolve: async (_root, { addressBookEntryId, ...rest }, ctx) => {
      await ctx.services.addressBook.deleteAddressBookEntry(callerOf(ctx), {
        ...parseArgs(deleteAddressBookEntryQuery, rest),
        ...parseArgs(deleteAddressBookEntryParams, { entryId: addressBookEntryId }),
      });
      return addressBookEntryId;
    },
  }),
  createAddressBookTag: t.field({
    type: Tag,
    args: { input: t.arg({ type: CreateTagInput, required: true }) },
    resolve: async (_root, { input }, ctx) => (await ctx.services.addressBook.createAddressBookTag(callerOf(ctx), parseArgs(createAddressBookTagBody, input))).tag,
  }),
  renameAddressBookTag: t.field({
    type: Tag,
    args: { tagId: t.arg.string({ required: true }), input: t.arg({ type: RenameTagInput, required: true }) },
    resolve: async (_root, { tagId, input }, ctx) =>
      (await ctx.services.addressBook.renameAddressBookTag(callerOf(ctx), { ...parseArgs(renameAddressBookTagBody, input), ...parseArgs(renameAddressBookTagParams, { tagId }) })).tag,
  }),
  deleteAddressBookTag: t.string({
    description: 'The id of the deleted tag',
    args: { tagId: t.arg.string({ required: true }), subaccountId: t.arg.string() },
    resolve: async (_root, { tagId, ...rest }, ctx) => {
      await ctx.services.addressBook.deleteAddressBookTag(callerOf(ctx), { ...parseArgs(deleteAddressBookTagQuery, rest), ...parseArgs(deleteAddressBookTagParams, { tagId }) });
      return tagId;
    },
  }),
  tagAddressBookEntry: t.field({
    type: Entry,
    args: {
      addressBookEntryId: t.arg.string({ required: true }),
      tagId: t.arg.string({ required: true }),
      subaccountId: t.arg.string(),
    },
    resolve: async (_root, { addressBookEntryId, ...rest }, ctx) =>
      (
        await ctx.services.addressBook.tagAddressBookEntry(callerOf(ctx), {
          ...parseArgs(tagAddressBookEntryBody, rest),
          ...parseArgs(tagAddressBookEntryParams, { entryId: addressBookEntryId }),
        })
      ).entry,
  }),
  untagAddressBookEntry: t.field({
    type: Entry,
    args: {
      addressBookEntryId: t.arg.string({ required: true }),
      tagId: t.arg.string({ required: true }),
      subaccountId: t.arg.string(),
    },
    resolve: async (_root, { addressBookEntryId, tagId, subaccountId }, ctx) =>
      (
        await ctx.services.addressBook.untagAddressBookEntry(callerOf(ctx), {
          ...parseArgs(untagAddressBookEntryQuery, { subaccountId }),
          ...parseArgs(untagAddressBookEntryParams, { entryId: addressBookEntryId, tagId }),
        })
      ).entry,
  }),
}));
