import { z } from 'zod';
import {
  ADDRESS_BOOK_KINDS,
  type AddressBookEntryView,
  type AddressBookScope,
  type AddressBookTagView,
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
import type { Services } from '../../../services/index.ts';
import { toInt64, toRfc3339 } from '../codec.ts';
import { defineRoute } from '../route.ts';

/**
 * Address book (spec 2.2, 2.3, 4.1). The list is exactly 4.1; the other operations and
 * the internal destination's field names are ours (docs/api-decisions.md). Every route
 * names its book with `subaccountId` (body for POST/PATCH, query otherwise); omitted, it
 * is the root account's book. Inputs are parsed with services/addressBook/<op>.schema.ts.
 */

const kind = z.enum(ADDRESS_BOOK_KINDS);

const scopeSchema = z.object({
  scopeType: z.enum(['ROOT', 'SUBACCOUNT']),
  rootAccountId: z.string(),
  subaccountId: z.string(),
});
const tagSchema = z.object({
  tagId: z.string(),
  scope: scopeSchema,
  name: z.string(),
  color: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const entrySchema = z.object({
  addressBookEntryId: z.string(),
  scope: scopeSchema,
  kind,
  label: z.string(),
  note: z.string(),
  external: z.object({ address: z.string(), registryChainId: z.number().int() }).optional(),
  internal: z
    .object({
      rootAccountId: z.string(),
      accountId: z.string(),
      accountKind: z.enum(['ROOT', 'SUBACCOUNT']),
      smartAccountAddress: z.string(),
      username: z.string(),
      subaccountLabel: z.string(),
    })
    .optional(),
  tags: z.array(tagSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
  revision: z.string(),
});

const scope = (s: AddressBookScope) => ({ scopeType: s.scopeType, rootAccountId: s.rootAccountId, subaccountId: s.subaccountId });

export const renderTag = (t: AddressBookTagView) => ({
  tagId: t.tagId,
  scope: scope(t.scope),
  name: t.name,
  color: t.color,
  createdAt: toRfc3339(t.createdAt),
  updatedAt: toRfc3339(t.updatedAt),
});

export const renderEntry = (e: AddressBookEntryView) => ({
  addressBookEntryId: e.addressBookEntryId,
  scope: scope(e.scope),
  kind: e.kind,
  label: e.label,
  note: e.note,
  ...(e.external ? { external: { address: e.external.address, registryChainId: e.external.registryChainId } } : {}),
  ...(e.internal ? { internal: { ...e.internal } } : {}),
  tags: e.tags.map(renderTag),
  createdAt: toRfc3339(e.createdAt),
  updatedAt: toRfc3339(e.updatedAt),
  revision: toInt64(e.revision),
});

export function addressBookRoutes(s: Services) {
  const book = s.addressBook;
  return [
    defineRoute({
      operationId: 'listAddressBookEntries',
      method: 'GET',
      url: '/v1/auth/address-book-entries',
      summary: 'List address-book entries, newest created first',
      auth: 'caller',
      query: listAddressBookEntriesQuery,
      response: z.object({ entries: z.array(entrySchema), nextPageToken: z.string() }),
      handler: async ({ query }, ctx) => {
        const r = await book.listAddressBookEntries(ctx.caller, query);
        return { entries: r.entries.map(renderEntry), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'getAddressBookEntry',
      method: 'GET',
      url: '/v1/auth/address-book-entries/:entryId',
      summary: 'Get one address-book entry',
      auth: 'caller',
      params: getAddressBookEntryParams,
      query: getAddressBookEntryQuery,
      response: z.object({ entry: entrySchema }),
      handler: async ({ params, query }, ctx) => {
        const r = await book.getAddressBookEntry(ctx.caller, { ...query, entryId: params.entryId });
        return { entry: renderEntry(r.entry) };
      },
    }),
    defineRoute({
      operationId: 'createAddressBookEntry',
      method: 'POST',
      url: '/v1/auth/address-book-entries',
      summary: 'Save a destination in an address book',
      auth: 'caller',
      body: createAddressBookEntryBody,
      response: z.object({ entry: entrySchema }),
      handler: async ({ body }, ctx) => {
        const r = await book.createAddressBookEntry(ctx.caller, body);
        return { entry: renderEntry(r.entry) };
      },
    }),
    defineRoute({
      operationId: 'updateAddressBookEntry',
      method: 'PATCH',
      url: '/v1/auth/address-book-entries/:entryId',
      summary: 'Change an entry if it is still at the expected revision',
      auth: 'caller',
      params: updateAddressBookEntryParams,
      body: updateAddressBookEntryBody,
      response: z.object({ entry: entrySchema }),
      handler: async ({ params, body }, ctx) => {
        const r = await book.updateAddressBookEntry(ctx.caller, { ...body, entryId: params.entryId });
        return { entry: renderEntry(r.entry) };
      },
    }),
    defineRoute({
      operationId: 'deleteAddressBookEntry',
      method: 'DELETE',
      url: '/v1/auth/address-book-entries/:entryId',
      summary: 'Delete an entry (conditional when expectedRevision is given)',
      auth: 'caller',
      params: deleteAddressBookEntryParams,
      query: deleteAddressBookEntryQuery,
      response: z.object({}),
      handler: async ({ params, query }, ctx) => {
        await book.deleteAddressBookEntry(ctx.caller, { ...query, entryId: params.entryId });
        return {};
      },
    }),
    defineRoute({
      operationId: 'tagAddressBookEntry',
      method: 'POST',
      url: '/v1/auth/address-book-entries/:entryId/tags',
      summary: 'Put a tag of the same book on an entry (idempotent)',
      auth: 'caller',
      params: tagAddressBookEntryParams,
      body: tagAddressBookEntryBody,
      response: z.object({ entry: entrySchema }),
      handler: async ({ params, body }, ctx) => {
        const r = await book.tagAddressBookEntry(ctx.caller, { ...body, entryId: params.entryId });
        return { entry: renderEntry(r.entry) };
      },
    }),
    defineRoute({
      operationId: 'untagAddressBookEntry',
      method: 'DELETE',
      url: '/v1/auth/address-book-entries/:entryId/tags/:tagId',
      summary: 'Take a tag off an entry (idempotent)',
      auth: 'caller',
      params: untagAddressBookEntryParams,
      query: untagAddressBookEntryQuery,
      response: z.object({ entry: entrySchema }),
      handler: async ({ params, query }, ctx) => {
        const r = await book.untagAddressBookEntry(ctx.caller, { ...query, ...params });
        return { entry: renderEntry(r.entry) };
      },
    }),
    defineRoute({
      operationId: 'listAddressBookTags',
      method: 'GET',
      url: '/v1/auth/address-book-tags',
      summary: 'Every tag of an address book, by name',
      auth: 'caller',
      query: listAddressBookTagsQuery,
      response: z.object({ tags: z.array(tagSchema) }),
      handler: async ({ query }, ctx) => {
        const r = await book.listAddressBookTags(ctx.caller, query);
        return { tags: r.tags.map(renderTag) };
      },
    }),
    defineRoute({
      operationId: 'createAddressBookTag',
      method: 'POST',
      url: '/v1/auth/address-book-tags',
      summary: 'Create a tag in an address book',
      auth: 'caller',
      body: createAddressBookTagBody,
      response: z.object({ tag: tagSchema }),
      handler: async ({ body }, ctx) => {
        const r = await book.createAddressBookTag(ctx.caller, body);
        return { tag: renderTag(r.tag) };
      },
    }),
    defineRoute({
      operationId: 'renameAddressBookTag',
      method: 'PATCH',
      url: '/v1/auth/address-book-tags/:tagId',
      summary: 'Rename or recolor a tag',
      auth: 'caller',
      params: renameAddressBookTagParams,
      body: renameAddressBookTagBody,
      response: z.object({ tag: tagSchema }),
      handler: async ({ params, body }, ctx) => {
        const r = await book.renameAddressBookTag(ctx.caller, { ...body, tagId: params.tagId });
        return { tag: renderTag(r.tag) };
      },
    }),
    defineRoute({
      operationId: 'deleteAddressBookTag',
      method: 'DELETE',
      url: '/v1/auth/address-book-tags/:tagId',
      summary: 'Delete a tag and take it off every entry',
      auth: 'caller',
      params: deleteAddressBookTagParams,
      query: deleteAddressBookTagQuery,
      response: z.object({}),
      handler: async ({ params, query }, ctx) => {
        await book.deleteAddressBookTag(ctx.caller, { ...query, tagId: params.tagId });
        return {};
      },
    }),
  ];
}
