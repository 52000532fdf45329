import { z } from 'zod';
import { PERMISSIONS } from '../../auth/caller.ts';

export const POLICY_NAME_MAX = 64;
/** What the transports let through: longer than POLICY_NAME_MAX until trimmed, so the service names the rule. */
const POLICY_NAME_INPUT_MAX = 256;
const PERMISSIONS_INPUT_MAX = 16;

export const createApiPolicyBody = z.strictObject({ name: z.string().max(POLICY_NAME_INPUT_MAX), permissions: z.array(z.enum(PERMISSIONS)).max(PERMISSIONS_INPUT_MAX) });
export type CreateApiPolicyBody = z.output<typeof createApiPolicyBody>;
