export { bookQuery as listAddressBookTagsQuery } from './inputs.ts';
