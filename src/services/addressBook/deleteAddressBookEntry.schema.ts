import { z } from 'zod';
import { nonNegativeInt64, subaccountIdField } from '../inputCodec.ts';

export { entryParams as deleteAddressBookEntryParams } from './inputs.ts';
export const deleteAddressBookEntryQuery = z.strictObject({ subaccountId: subaccountIdField, expectedRevision: nonNegativeInt64().optional() });
export type DeleteAddressBookEntryQuery = z.output<typeof deleteAddressBookEntryQuery>;
