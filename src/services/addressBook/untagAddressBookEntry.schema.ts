import { z } from 'zod';
import { addressBookId } from './inputs.ts';

export const untagAddressBookEntryParams = z.strictObject({ entryId: addressBookId(), tagId: addressBookId() });
export type UntagAddressBookEntryParams = z.output<typeof untagAddressBookEntryParams>;
export { bookQuery as untagAddressBookEntryQuery } from './inputs.ts';
