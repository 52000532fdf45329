import { z } from 'zod';
import { subaccountIdField } from '../inputCodec.ts';
import { addressBookId } from './inputs.ts';

export { entryParams as tagAddressBookEntryParams } from './inputs.ts';
export const tagAddressBookEntryBody = z.strictObject({ subaccountId: subaccountIdField, tagId: addressBookId() });
export type TagAddressBookEntryBody = z.output<typeof tagAddressBookEntryBody>;
