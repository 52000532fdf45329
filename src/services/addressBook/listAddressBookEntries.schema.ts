import { z } from 'zod';
import { pageQuery, subaccountIdField } from '../inputCodec.ts';
import { entryKind } from './inputs.ts';

export const ADDRESS_BOOK_LIST_DEFAULT = 200;
export const ADDRESS_BOOK_LIST_MAX = 500;

export const listAddressBookEntriesQuery = z.strictObject({ kind: entryKind.optional(), subaccountId: subaccountIdField, ...pageQuery(ADDRESS_BOOK_LIST_MAX) });
export type ListAddressBookEntriesQuery = z.output<typeof listAddressBookEntriesQuery>;
