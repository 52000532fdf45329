import { z } from 'zod';
import type { ApiKeyView } from '../services/apiKeys/index.ts';
import { base64, int64String, nextPageToken, rfc3339, toBase64, toInt64, toRfc3339 } from './scalars.ts';

/** Spec 2.4: omitted members (lastUsedAt, expiresAt) are absent, not null. */
export const apiKeySchema = z.strictObject({
  keyId: z.string(),
  label: z.string(),
  icon: z.string(),
  color: z.string(),
  ipWhitelist: z.array(z.string()),
  status: z.enum(['ACTIVE', 'REVOKED']),
  subaccountId: z.string().describe('Empty for a key of the root account'),
  policyId: z.string().describe('Empty when no policy is attached'),
  createdAt: rfc3339,
  lastUsedAt: rfc3339.optional(),
  publicKeyEd25519: base64,
  expiresAt: rfc3339.optional(),
  createdByActor: z.string(),
  updatedAt: rfc3339,
  revision: int64String,
});

export const apiKeyEnvelopeSchema = z.strictObject({ apiKey: apiKeySchema });
export const apiKeysSchema = z.strictObject({ apiKeys: z.array(apiKeySchema), nextPageToken });

export function presentApiKey(k: ApiKeyView): z.infer<typeof apiKeySchema> {
  return {
    keyId: k.keyId,
    label: k.label,
    icon: k.icon,
    color: k.color,
    ipWhitelist: k.ipWhitelist,
    status: k.status,
    subaccountId: k.subaccountId,
    policyId: k.policyId,
    createdAt: toRfc3339(k.createdAt),
    ...(k.lastUsedAt ? { lastUsedAt: toRfc3339(k.lastUsedAt) } : {}),
    publicKeyEd25519: toBase64(k.publicKeyEd25519),
    ...(k.expiresAt ? { expiresAt: toRfc3339(k.expiresAt) } : {}),
    createdByActor: k.createdByActor,
    updatedAt: toRfc3339(k.updatedAt),
    revision: toInt64(k.revision),
  };
}
