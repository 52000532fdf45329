export { entryParams as getAddressBookEntryParams, bookQuery as getAddressBookEntryQuery } from './inputs.ts';
