import { z } from 'zod';
import { subaccountIdField } from '../inputCodec.ts';
import { TAG_INPUT_MAX } from './createAddressBookTag.schema.ts';

export { tagParams as renameAddressBookTagParams } from './inputs.ts';
export const renameAddressBookTagBody = z.strictObject({
  subaccountId: subaccountIdField,
  name: z.string().max(TAG_INPUT_MAX).optional(),
  /** "" clears the color. */
  color: z.string().max(TAG_INPUT_MAX).optional(),
});
export type RenameAddressBookTagBody = z.output<typeof renameAddressBookTagBody>;
