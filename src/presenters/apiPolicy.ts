import { z } from 'zod';
import { ApiPermission } from '../generated/prisma/enums.ts';
import type { ApiPolicyView } from '../services/apiKeys/index.ts';
import { nextPageToken, rfc3339, toRfc3339 } from './scalars.ts';

export const apiPolicySchema = z.strictObject({
  policyId: z.string(),
  name: z.string(),
  permissions: z.array(z.enum(ApiPermission)),
  createdAt: rfc3339,
});

export const apiPolicyEnvelopeSchema = z.strictObject({ policy: apiPolicySchema });
export const apiPoliciesSchema = z.strictObject({ policies: z.array(apiPolicySchema), nextPageToken });

export function presentApiPolicy(p: ApiPolicyView): z.infer<typeof apiPolicySchema> {
  return { policyId: p.policyId, name: p.name, permissions: p.permissions, createdAt: toRfc3339(p.createdAt) };
}
