import { z } from 'zod';
import { nonNegativeInt64, subaccountIdField } from '../inputCodec.ts';
import { LABEL_INPUT_MAX, NOTE_INPUT_MAX } from './createAddressBookEntry.schema.ts';
import { externalInput, internalInput } from './inputs.ts';

export { entryParams as updateAddressBookEntryParams } from './inputs.ts';
export const updateAddressBookEntryBody = z.strictObject({
  subaccountId: subaccountIdField,
  expectedRevision: nonNegativeInt64(),
  label: z.string().max(LABEL_INPUT_MAX).optional(),
  /** "" clears the note. */
  note: z.string().max(NOTE_INPUT_MAX).optional(),
  external: externalInput.optional(),
  internal: internalInput.optional(),
});
export type UpdateAddressBookEntryBody = z.output<typeof updateAddressBookEntryBody>;
