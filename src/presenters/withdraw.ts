import { z } from 'zod';
import type { DestinationCheck } from '../services/chain/destinations.ts';

/** A withdrawal accepted: its intent id is the id of the flow that carries it. */
export const withdrawAcceptedSchema = z.strictObject({ intentId: z.string() });
export const presentWithdrawAccepted = (r: { intentId: string }): z.infer<typeof withdrawAcceptedSchema> => ({ intentId: r.intentId });

export const destinationCheckSchema = z.strictObject({
  valid: z.boolean(),
  normalizedAddress: z.string().describe('The address as it would be stored (EIP-55 checksum for EVM); empty when invalid'),
  reason: z.string().describe('Why it is not valid; empty when it is'),
  isInternal: z.boolean().describe('One of this exchange\'s deposit addresses: withdraw with TO_FUNDING instead'),
  inAddressBook: z.boolean(),
  addressBookEntryId: z.string(),
  allowListOnly: z.boolean().describe('The root account withdraws only to address-book entries'),
  allowed: z.boolean().describe('Whether a withdrawal there would be accepted'),
});

export function presentDestinationCheck(c: DestinationCheck): z.infer<typeof destinationCheckSchema> {
  return {
    valid: c.valid,
    normalizedAddress: c.normalizedAddress,
    reason: c.reason,
    isInternal: c.isInternal,
    inAddressBook: c.inAddressBook,
    addressBookEntryId: c.addressBookEntryId,
    allowListOnly: c.allowListOnly,
    allowed: c.allowed,
  };
}

export const withdrawAllowListSchema = z.strictObject({ allowListOnly: z.boolean() });
export const presentWithdrawAllowList = (r: { allowListOnly: boolean }): z.infer<typeof withdrawAllowListSchema> => ({ allowListOnly: r.allowListOnly });
