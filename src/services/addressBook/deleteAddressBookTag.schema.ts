export { tagParams as deleteAddressBookTagParams, bookQuery as deleteAddressBookTagQuery } from './inputs.ts';
