import { createApiKeyBody } from '../../../../services/apiKeys/createApiKey.schema.ts';
import { getApiKeyParams } from '../../../../services/apiKeys/getApiKey.schema.ts';
import type { ApiKeyView } from '../../../../services/apiKeys/index.ts';
import { revokeApiKeyParams } from '../../../../services/apiKeys/revokeApiKey.schema.ts';
import { updateApiKeyBody, updateApiKeyParams } from '../../../../services/apiKeys/updateApiKey.schema.ts';
import { toBase64 } from '../../../../presenters/scalars.ts';
import { builder } from '../../builder.ts';
import { callerOf, connectionFromPage } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';

const ApiKeyStatus = builder.enumType('ApiKeyStatus', { values: ['ACTIVE', 'REVOKED'] as const });

const ApiKey = builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'An Ed25519 API key (spec 2.4)',
  fields: (t) => ({
    keyId: t.exposeString('keyId'),
    label: t.exposeString('label'),
    icon: t.exposeString('icon'),
    color: t.exposeString('color'),
    ipWhitelist: t.exposeStringList('ipWhitelist'),
    status: t.field({ type: ApiKeyStatus, resolve: (k) => k.status }),
    subaccountId: t.exposeString('subaccountId'),
    policyId: t.exposeString('policyId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.lastUsedAt ?? null }),
    publicKeyEd25519: t.string({ description: 'base64', resolve: (k) => toBase64(k.publicKeyEd25519) }),
    expiresAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.expiresAt ?? null }),
    createdByActor: t.exposeString('createdByActor'),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    revision: t.field({ type: 'Int64', resolve: (k) => k.revision }),
  }),
});

builder.objectFields(ViewerRef, (t) => ({
  apiKeys: t.connection({
    type: ApiKey,
    resolve: (caller, args, ctx) =>
      connectionFromPage(args, 100, async (page) => {
        const r = await ctx.services.apiKeys.listApiKeys(caller, page);
        return { items: r.apiKeys, nextPageToken: r.nextPageToken };
      }),
  }),
  apiKey: t.field({
    type: ApiKey,
    args: { keyId: t.arg.string({ required: true }) },
    resolve: async (caller, args, ctx) => (await ctx.services.apiKeys.getApiKey(caller, parseArgs(getApiKeyParams, args))).apiKey,
  }),
}));

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    label: t.string({ required: true }),
    publicKeyEd25519: t.string({ required: true, description: 'base64 of the 32-byte public key' }),
    color: t.string(),
    icon: t.string(),
    ipWhitelist: t.stringList(),
    subaccountId: t.string(),
    policyId: t.string(),
    expiresAt: t.field({ type: 'DateTime' }),
  }),
});

const UpdateApiKeyInput = builder.inputType('UpdateApiKeyInput', {
  fields: (t) => ({
    expectedRevision: t.field({ type: 'Int64', required: true }),
    label: t.string(),
    icon: t.string(),
    color: t.string(),
    ipWhitelist: t.stringList(),
    policyId: t.string({ description: 'Empty detaches the policy' }),
    expiresAt: t.field({ type: 'DateTime' }),
    clearExpiresAt: t.boolean({ description: 'Removes the expiry' }),
  }),
});

/**
 * The key's inputs parsed with /v1's schemas (services/apiKeys/<op>.schema.ts), but for the
 * fields GraphQL types itself: the key is base64 text whose length the service checks, the
 * expiry a DateTime scalar, and clearExpiresAt stands for /v1's null.
 */
const createApiKeyFields = createApiKeyBody.omit({ publicKeyEd25519: true, expiresAt: true });
const updateApiKeyFields = updateApiKeyBody.omit({ expiresAt: true });

function base64Key(value: string): Uint8Array {
  return new Uint8Array(Buffer.from(value, 'base64'));
}

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: ApiKey,
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const { publicKeyEd25519, expiresAt, ...fields } = input;
      const r = await ctx.services.apiKeys.createApiKey(callerOf(ctx), {
        ...parseArgs(createApiKeyFields, fields),
        publicKeyEd25519: base64Key(publicKeyEd25519),
        ...(expiresAt != null ? { expiresAt } : {}),
      });
      return r.apiKey;
    },
  }),
  updateApiKey: t.field({
    type: ApiKey,
    args: { keyId: t.arg.string({ required: true }), input: t.arg({ type: UpdateApiKeyInput, required: true }) },
    resolve: async (_root, { keyId, input }, ctx) => {
      const { expiresAt, clearExpiresAt, ...fields } = input;
      const r = await ctx.services.apiKeys.updateApiKey(callerOf(ctx), {
        ...parseArgs(updateApiKeyFields, fields),
        ...parseArgs(updateApiKeyParams, { keyId }),
        ...(clearExpiresAt ? { expiresAt: null } : expiresAt != null ? { expiresAt } : {}),
      });
      return r.apiKey;
    },
  }),
  revokeApiKey: t.field({
    type: ApiKey,
    args: { keyId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => (await ctx.services.apiKeys.revokeApiKey(callerOf(ctx), parseArgs(revokeApiKeyParams, args))).apiKey,
  }),
}));
