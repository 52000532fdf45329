import { z } from 'zod';
import { subaccountIdField } from '../inputCodec.ts';

export const TAG_NAME_MAX = 32;
export const TAG_COLOR_MAX = 32;
export const MAX_TAGS_PER_BOOK = 200;
/** What the transports let through: longer than the rules until trimmed, so the service names the rule. */
export const TAG_INPUT_MAX = 1024;

export const createAddressBookTagBody = z.strictObject({
  subaccountId: subaccountIdField,
  name: z.string().max(TAG_INPUT_MAX),
  color: z.string().max(TAG_INPUT_MAX).optional(),
});
export type CreateAddressBookTagBody = z.output<typeof createAddressBookTagBody>;
