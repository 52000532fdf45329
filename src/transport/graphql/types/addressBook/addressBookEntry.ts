import { ADDRESS_BOOK_KINDS, ADDRESS_BOOK_LIST_DEFAULT, type AddressBookEntryView } from '../../../../services/addressBook/index.ts';
import { createAddressBookEntryBody } from '../../../../services/addressBook/createAddressBookEntry.schema.ts';
import { deleteAddressBookEntryParams, deleteAddressBookEntryQuery } from '../../../../services/addressBook/deleteAddressBookEntry.schema.ts';
import { getAddressBookEntryParams, getAddressBookEntryQuery } from '../../../../services/addressBook/getAddressBookEntry.schema.ts';
import { listAddressBookEntriesQuery } from '../../../../services/addressBook/listAddressBookEntries.schema.ts';
import { tagAddressBookEntryBody, tagAddressBookEntryParams } from '../../../../services/addressBook/tagAddressBookEntry.schema.ts';
import { untagAddressBookEntryParams, untagAddressBookEntryQuery } from '../../../../services/addressBook/untagAddressBookEntry.schema.ts';
import { updateAddressBookEntryBody, updateAddressBookEntryParams } from '../../../../services/addressBook/updateAddressBookEntry.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf, connectionFromPage } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { External, ExternalInput } from './addressBookExternalDestination.ts';
import { Internal, InternalInput } from './addressBookInternalDestination.ts';
import { Scope } from './addressBookScope.ts';
import { Tag } from './addressBookTag.ts';

/**
 * Address book over GraphQL: the same service calls as /v1 (routes/addressBook.ts), the
 * same field names, validated by the same input schemas
 * (services/addressBook/<op>.schema.ts), no rules of its own. Nulls of optional inputs
 * mean "not given".
 */

const EntryKind = builder.enumType('AddressBookEntryKind', { values: ADDRESS_BOOK_KINDS });

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
}));

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
