import { z } from 'zod';
import { subaccountIdField } from '../inputCodec.ts';
import { addressBookId, entryKind, externalInput, internalInput } from './inputs.ts';

export const ENTRY_LABEL_MAX = 64;
export const ENTRY_NOTE_MAX = 256;
export const MAX_TAGS_PER_ENTRY = 50;
export const MAX_ENTRIES_PER_BOOK = 5000;
/** What the transports let through: longer than the rules until trimmed, so the service names the rule. */
export const LABEL_INPUT_MAX = 1024;
export const NOTE_INPUT_MAX = 4096;
const TAG_IDS_INPUT_MAX = 1000;

export const createAddressBookEntryBody = z.strictObject({
  subaccountId: subaccountIdField,
  kind: entryKind,
  label: z.string().max(LABEL_INPUT_MAX),
  note: z.string().max(NOTE_INPUT_MAX).optional(),
  external: externalInput.optional(),
  internal: internalInput.optional(),
  tagIds: z.array(addressBookId()).max(TAG_IDS_INPUT_MAX).optional(),
});
export type CreateAddressBookEntryBody = z.output<typeof createAddressBookEntryBody>;
