/** The address book's types, one a file; each registers the fields that answer it when imported. */
import './addressBookEntry.ts';
import './addressBookTag.ts';
