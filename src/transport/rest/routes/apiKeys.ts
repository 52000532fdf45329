import { apiKeyEnvelopeSchema, apiKeysSchema, presentApiKey } from '../../../presenters/apiKey.ts';
import { apiPoliciesSchema, apiPolicyEnvelopeSchema, presentApiPolicy } from '../../../presenters/apiPolicy.ts';
import { createApiKeyBody } from '../../../services/apiKeys/createApiKey.schema.ts';
import { createApiPolicyBody } from '../../../services/apiKeys/createApiPolicy.schema.ts';
import { getApiKeyParams } from '../../../services/apiKeys/getApiKey.schema.ts';
import { listApiKeysQuery } from '../../../services/apiKeys/listApiKeys.schema.ts';
import { listApiPoliciesQuery } from '../../../services/apiKeys/listApiPolicies.schema.ts';
import { revokeApiKeyParams } from '../../../services/apiKeys/revokeApiKey.schema.ts';
import { updateApiKeyBody, updateApiKeyParams } from '../../../services/apiKeys/updateApiKey.schema.ts';
import type { Services } from '../../../services/index.ts';
import { defineRoute } from '../route.ts';

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
      response: apiPolicyEnvelopeSchema,
      handler: async ({ body }, ctx) => ({ policy: presentApiPolicy((await s.apiKeys.createApiPolicy(ctx.caller, body)).policy) }),
    }),
    defineRoute({
      operationId: 'listApiPolicies',
      method: 'GET',
      url: '/v1/auth/api-policies',
      summary: 'List API policies, newest first',
      auth: 'caller',
      query: listApiPoliciesQuery,
      response: apiPoliciesSchema,
      handler: async ({ query }, ctx) => {
        const r = await s.apiKeys.listApiPolicies(ctx.caller, query);
        return { policies: r.policies.map(presentApiPolicy), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'createApiKey',
      method: 'POST',
      url: '/v1/auth/api-keys',
      summary: 'Create an Ed25519 API key (spec 4.2)',
      auth: 'caller',
      body: createApiKeyBody,
      response: apiKeyEnvelopeSchema,
      handler: async ({ body }, ctx) => ({ apiKey: presentApiKey((await s.apiKeys.createApiKey(ctx.caller, body)).apiKey) }),
    }),
    defineRoute({
      operationId: 'listApiKeys',
      method: 'GET',
      url: '/v1/auth/api-keys',
      summary: 'List API keys, newest first',
      auth: 'caller',
      query: listApiKeysQuery,
      response: apiKeysSchema,
      handler: async ({ query }, ctx) => {
        const r = await s.apiKeys.listApiKeys(ctx.caller, query);
        return { apiKeys: r.apiKeys.map(presentApiKey), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'getApiKey',
      method: 'GET',
      url: '/v1/auth/api-keys/:keyId',
      summary: 'Get an API key',
      auth: 'caller',
      params: getApiKeyParams,
      response: apiKeyEnvelopeSchema,
      handler: async ({ params }, ctx) => ({ apiKey: presentApiKey((await s.apiKeys.getApiKey(ctx.caller, params)).apiKey) }),
    }),
    defineRoute({
      operationId: 'updateApiKey',
      method: 'PATCH',
      url: '/v1/auth/api-keys/:keyId',
      summary: 'Change an API key, conditional on its revision',
      auth: 'caller',
      params: updateApiKeyParams,
      body: updateApiKeyBody,
      response: apiKeyEnvelopeSchema,
      handler: async ({ params, body }, ctx) => ({
        apiKey: presentApiKey((await s.apiKeys.updateApiKey(ctx.caller, { ...body, keyId: params.keyId })).apiKey),
      }),
    }),
    defineRoute({
      operationId: 'revokeApiKey',
      method: 'DELETE',
      url: '/v1/auth/api-keys/:keyId',
      summary: 'Revoke an API key',
      auth: 'caller',
      params: revokeApiKeyParams,
      response: apiKeyEnvelopeSchema,
      handler: async ({ params }, ctx) => ({ apiKey: presentApiKey((await s.apiKeys.revokeApiKey(ctx.caller, params)).apiKey) }),
    }),
  ];
}
