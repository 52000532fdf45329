import { z } from 'zod';
import { nonNegativeInt64, rfc3339 } from '../inputCodec.ts';
import { cidrList, TEXT_INPUT_MAX } from './createApiKey.schema.ts';

export { keyIdParams as updateApiKeyParams } from './getApiKey.schema.ts';
export const updateApiKeyBody = z.strictObject({
  expectedRevision: nonNegativeInt64(),
  label: z.string().max(TEXT_INPUT_MAX).optional(),
  icon: z.string().max(TEXT_INPUT_MAX).optional(),
  color: z.string().max(TEXT_INPUT_MAX).optional(),
  ipWhitelist: cidrList.optional(),
  /** "" detaches the policy. */
  policyId: z.string().max(64).optional(),
  /** null removes the expiry. */
  expiresAt: rfc3339().nullable().optional(),
});
export type UpdateApiKeyBody = z.output<typeof updateApiKeyBody>;
