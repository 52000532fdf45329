import { createApiKeyBody } from '../../../services/apiKeys/createApiKey.schema.ts';
import { createApiPolicyBody } from '../../../services/apiKeys/createApiPolicy.schema.ts';
import { getApiKeyParams } from '../../../services/apiKeys/getApiKey.schema.ts';
import type { ApiKeyView, ApiPolicyView } from '../../../services/apiKeys/index.ts';
import { listApiKeysQuery } from '../../../services/apiKeys/listApiKeys.schema.ts';
import { listApiPoliciesQuery } from '../../../services/apiKeys/listApiPolicies.schema.ts';
import { revokeApiKeyParams } from '../../../services/apiKeys/revokeApiKey.schema.ts';
import { updateApiKeyBody, updateApiKeyParams } from '../../../services/apiKeys/updateApiKey.schema.ts';
import type { Services } from '../../../services/index.ts';
import { toBase64, toInt64, toRfc3339 } from '../codec.ts';
import { defineRoute } from '../route.ts';

/** Spec 2.4: omitted members (lastUsedAt, expiresAt) are absent, not null. */
export function apiKeyJson(k: ApiKeyView) {
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

export function apiPolicyJson(p: ApiPolicyView) {
  return { policyId: p.policyId, name: p.name, permissions: p.permissions, createdAt: toRfc3339(p.createdAt) };
}

export function apiKeyRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'createApiPolicy',
      method: 'POST',
      url: '/v1/auth/api-policies',
      summary: 'Create an API policy (a named set of permissions keys can attach)',
      auth: 'caller',
      body: createApiPolicyBody,
      examples: {
        trading: { summary: 'A trading bot: read and trade', value: { name: 'trading bot', permissions: ['READ', 'TRADE'] } },
        readOnly: { summary: 'Read only (dashboards, accounting)', value: { name: 'read only', permissions: ['READ'] } },
        treasury: { summary: 'Moves funds: transfer and withdraw', value: { name: 'treasury', permissions: ['READ', 'TRANSFER', 'WITHDRAW'] } },
      },
      handler: async ({ body }, ctx) => ({ policy: apiPolicyJson((await s.apiKeys.createApiPolicy(ctx.caller, body)).policy) }),
    }),
    defineRoute({
      operationId: 'listApiPolicies',
      method: 'GET',
      url: '/v1/auth/api-policies',
      summary: 'List API policies, newest first',
      auth: 'caller',
      query: listApiPoliciesQuery,
      handler: async ({ query }, ctx) => {
        const r = await s.apiKeys.listApiPolicies(ctx.caller, query);
        return { policies: r.policies.map(apiPolicyJson), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'createApiKey',
      method: 'POST',
      url: '/v1/auth/api-keys',
      summary: 'Create an Ed25519 API key (spec 4.2)',
      auth: 'caller',
      body: createApiKeyBody,
      handler: async ({ body }, ctx) => ({ apiKey: apiKeyJson((await s.apiKeys.createApiKey(ctx.caller, body)).apiKey) }),
    }),
    defineRoute({
      operationId: 'listApiKeys',
      method: 'GET',
      url: '/v1/auth/api-keys',
      summary: 'List API keys, newest first',
      auth: 'caller',
      query: listApiKeysQuery,
      handler: async ({ query }, ctx) => {
        const r = await s.apiKeys.listApiKeys(ctx.caller, query);
        return { apiKeys: r.apiKeys.map(apiKeyJson), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'getApiKey',
      method: 'GET',
      url: '/v1/auth/api-keys/:keyId',
      summary: 'Get an API key',
      auth: 'caller',
      params: getApiKeyParams,
      handler: async ({ params }, ctx) => ({ apiKey: apiKeyJson((await s.apiKeys.getApiKey(ctx.caller, params)).apiKey) }),
    }),
    defineRoute({
      operationId: 'updateApiKey',
      method: 'PATCH',
      url: '/v1/auth/api-keys/:keyId',
      summary: 'Change an API key, conditional on its revision',
      auth: 'caller',
      params: updateApiKeyParams,
      body: updateApiKeyBody,
      handler: async ({ params, body }, ctx) => ({
        apiKey: apiKeyJson((await s.apiKeys.updateApiKey(ctx.caller, { ...body, keyId: params.keyId })).apiKey),
      }),
    }),
    defineRoute({
      operationId: 'revokeApiKey',
      method: 'DELETE',
      url: '/v1/auth/api-keys/:keyId',
      summary: 'Revoke an API key',
      auth: 'caller',
      params: revokeApiKeyParams,
      handler: async ({ params }, ctx) => ({ apiKey: apiKeyJson((await s.apiKeys.revokeApiKey(ctx.caller, params)).apiKey) }),
    }),
  ];
}
