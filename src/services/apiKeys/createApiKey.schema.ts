import { z } from 'zod';
import { bytes, rfc3339 } from '../inputCodec.ts';

export const API_KEY_LABEL_MAX = 64;
/** icon and color: UI tokens. */
export const API_KEY_TOKEN_MAX = 32;
export const IP_WHITELIST_MAX = 32;
/** What the transports let through: past the rules above, so the service names the rule that failed. */
export const TEXT_INPUT_MAX = 256;
export const cidrList = z.array(z.string().max(64)).max(64);

export const createApiKeyBody = z.strictObject({
  label: z.string().max(TEXT_INPUT_MAX),
  publicKeyEd25519: bytes(32),
  color: z.string().max(TEXT_INPUT_MAX).optional(),
  icon: z.string().max(TEXT_INPUT_MAX).optional(),
  ipWhitelist: cidrList.optional(),
  subaccountId: z.string().max(64).optional(),
  policyId: z.string().max(64).optional(),
  expiresAt: rfc3339().optional(),
});
export type CreateApiKeyBody = z.output<typeof createApiKeyBody>;
