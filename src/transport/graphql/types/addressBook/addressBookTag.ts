import type { AddressBookTagView } from '../../../../services/addressBook/index.ts';
import { createAddressBookTagBody } from '../../../../services/addressBook/createAddressBookTag.schema.ts';
import { deleteAddressBookTagParams, deleteAddressBookTagQuery } from '../../../../services/addressBook/deleteAddressBookTag.schema.ts';
import { listAddressBookTagsQuery } from '../../../../services/addressBook/listAddressBookTags.schema.ts';
import { renameAddressBookTagBody, renameAddressBookTagParams } from '../../../../services/addressBook/renameAddressBookTag.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { Scope } from './addressBookScope.ts';

export const Tag = builder.objectRef<AddressBookTagView>('AddressBookTag').implement({
  fields: (t) => ({
    tagId: t.exposeString('tagId'),
    scope: t.field({ type: Scope, resolve: (v) => v.scope }),
    name: t.exposeString('name'),
    color: t.exposeString('color', { description: 'UI color token; empty when unset' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.objectField(ViewerRef, 'addressBookTags', (t) =>
  t.field({
    type: [Tag],
    description: 'Every tag of the book, by name',
    args: { subaccountId: t.arg.string() },
    resolve: async (caller, args, ctx) => (await ctx.services.addressBook.listAddressBookTags(caller, parseArgs(listAddressBookTagsQuery, args))).tags,
  }),
);

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
}));
