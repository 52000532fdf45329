import { z } from 'zod';
import type { AddressBookEntryKind } from '../../generated/prisma/client.ts';
import { int32, subaccountIdField } from '../inputCodec.ts';

/**
 * Input fragments the address-book schemas share. Every operation names its book with
 * `subaccountId`; omitted, it is the root account's book. The transport bounds only stop
 * absurd input: the rules of spec 2.3 are checked by the operations (checks.ts), which
 * name the rule that failed.
 */

export const ADDRESS_BOOK_KINDS = ['EXTERNAL_CHAIN', 'INTERNAL_ACCOUNT'] as const satisfies readonly AddressBookEntryKind[];

export const addressBookId = () => z.string().max(64);
export const entryKind = z.enum(ADDRESS_BOOK_KINDS);
export const externalInput = z.strictObject({ address: z.string().max(128), registryChainId: int32() });
export const internalInput = z.strictObject({ accountId: addressBookId() });

export const entryParams = z.strictObject({ entryId: addressBookId() });
export const tagParams = z.strictObject({ tagId: addressBookId() });
export const bookQuery = z.strictObject({ subaccountId: subaccountIdField });
