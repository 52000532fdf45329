import type { Caller } from '../../auth/caller.ts';
import type { ApiKeysContext } from './context.ts';
import { flushLastUsed } from './flushLastUsed.ts';
import { createApiPolicy } from './createApiPolicy.ts';
import { listApiPolicies } from './listApiPolicies.ts';
import { createApiKey } from './createApiKey.ts';
import { listApiKeys } from './listApiKeys.ts';
import { getApiKey } from './getApiKey.ts';
import { updateApiKey } from './updateApiKey.ts';
import { revokeApiKey } from './revokeApiKey.ts';

/**
 * API keys (spec 2.4, 4.2) and the policies that grant them permissions. Keys are
 * managed only with a wallet session; a key may read keys within its own scope.
 */

export type { ApiKeysContext } from './context.ts';
export type { ApiKeyView, ApiPolicyView } from './views.ts';
export type { CreateApiKeyInput } from './createApiKey.ts';
export type { UpdateApiKeyInput } from './updateApiKey.ts';
export { API_KEY_LABEL_MAX, IP_WHITELIST_MAX } from './createApiKey.schema.ts';
export { POLICY_NAME_MAX } from './createApiPolicy.schema.ts';

/** The key and policy operations, keyed by their operationId, and the timer's flush of last-use times. */
export function createApiKeyService(ctx: ApiKeysContext) {
  return {
    createApiPolicy: (caller: Caller, input: Parameters<typeof createApiPolicy>[2]) => createApiPolicy(ctx, caller, input),
    listApiPolicies: (caller: Caller, input: Parameters<typeof listApiPolicies>[2]) => listApiPolicies(ctx, caller, input),
    createApiKey: (caller: Caller, input: Parameters<typeof createApiKey>[2]) => createApiKey(ctx, caller, input),
    listApiKeys: (caller: Caller, input: Parameters<typeof listApiKeys>[2]) => listApiKeys(ctx, caller, input),
    getApiKey: (caller: Caller, input: Parameters<typeof getApiKey>[2]) => getApiKey(ctx, caller, input),
    updateApiKey: (caller: Caller, input: Parameters<typeof updateApiKey>[2]) => updateApiKey(ctx, caller, input),
    revokeApiKey: (caller: Caller, input: Parameters<typeof revokeApiKey>[2]) => revokeApiKey(ctx, caller, input),
    flushLastUsed: () => flushLastUsed(ctx),
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
