import { z } from 'zod';
import { PERMISSIONS } from '../../../auth/caller.ts';
import type { ApiKeyView, ApiPolicyView } from '../../../services/apiKeys.ts';
import type { Services } from '../../../services/index.ts';
import { bytes, nonNegativeInt64, rfc3339, toBase64, toInt64, toRfc3339 } from '../codec.ts';
import { defineRoute } from '../route.ts';
import { pageQuery } from '../schemas.ts';

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

const keyIdParams = z.object({ keyId: z.string().max(64) });
const cidrList = z.array(z.string().max(64)).max(64);

export function apiKeyRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'createApiPolicy',
      method: 'POST',
      url: '/v1/auth/api-policies',
      summary: 'Create an API policy (a named set of permissions keys can attach)',
      auth: 'caller',
      body: z.strictObject({ name: z.string().max(256), permissions: z.array(z.enum(PERMISSIONS)).max(16) }),
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
      query: z.strictObject(pageQuery(500)),
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
      body: z.strictObject({
        label: z.string().max(256),
        publicKeyEd25519: bytes(32),
        color: z.string().max(256).optional(),
        icon: z.string().max(256).optional(),
        ipWhitelist: cidrList.optional(),
        subaccountId: z.string().max(64).optional(),
        policyId: z.string().max(64).optional(),
        expiresAt: rfc3339().optional(),
      }),
      handler: async ({ body }, ctx) => ({ apiKey: apiKeyJson((await s.apiKeys.createApiKey(ctx.caller, body)).apiKey) }),
    }),
    defineRoute({
      operationId: 'listApiKeys',
      method: 'GET',
      url: '/v1/auth/api-keys',
      summary: 'List API keys, newest first',
      auth: 'caller',
      query: z.strictObject(pageQuery(500)),
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
      params: keyIdParams,
      handler: async ({ params }, ctx) => ({ apiKey: apiKeyJson((await s.apiKeys.getApiKey(ctx.caller, params.keyId)).apiKey) }),
    }),
    defineRoute({
      operationId: 'updateApiKey',
      method: 'PATCH',
      url: '/v1/auth/api-keys/:keyId',
      summary: 'Change an API key, conditional on its revision',
      auth: 'caller',
      params: keyIdParams,
      body: z.strictObject({
        expectedRevision: nonNegativeInt64(),
        label: z.string().max(256).optional(),
        icon: z.string().max(256).optional(),
        color: z.string().max(256).optional(),
        ipWhitelist: cidrList.optional(),
        policyId: z.string().max(64).optional(),
        expiresAt: rfc3339().nullable().optional(),
      }),
      handler: async ({ params, body }, ctx) => ({
        apiKey: apiKeyJson((await s.apiKeys.updateApiKey(ctx.caller, params.keyId, body)).apiKey),
      }),
    }),
    defineRoute({
      operationId: 'revokeApiKey',
      method: 'DELETE',
      url: '/v1/auth/api-keys/:keyId',
      summary: 'Revoke an API key',
      auth: 'caller',
      params: keyIdParams,
      handler: async ({ params }, ctx) => ({ apiKey: apiKeyJson((await s.apiKeys.revokeApiKey(ctx.caller, params.keyId)).apiKey) }),
    }),
  ];
}
