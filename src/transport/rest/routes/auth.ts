import { z } from 'zod';
import { createSubaccountBody } from '../../../services/accounts/createSubaccount.schema.ts';
import { listSubaccountsQuery } from '../../../services/accounts/listSubaccounts.schema.ts';
import type { Services } from '../../../services/index.ts';
import { toRfc3339 } from '../codec.ts';
import { defineRoute } from '../route.ts';

/** Sessions, terms and subaccounts (spec 5; shapes are our choice, see docs/api-decisions.md). */
export function authRoutes(s: Services) {
  const subaccount = (v: { subaccountId: string; label: string; createdAt: Date }) => ({
    subaccountId: v.subaccountId,
    label: v.label,
    createdAt: toRfc3339(v.createdAt),
  });
  return [
    defineRoute({
      operationId: 'createWalletNonce',
      method: 'POST',
      url: '/v1/auth/wallet/nonce',
      summary: 'Issue a single-use sign-in message for an EVM address',
      auth: 'public',
      body: z.strictObject({ address: z.string().max(64) }),
      handler: async ({ body }, ctx) => {
        const r = await s.walletAuth.createWalletNonce(body, { clientIp: ctx.ip });
        return { nonce: r.nonce, message: r.message, expiresAt: toRfc3339(r.expiresAt) };
      },
    }),
    defineRoute({
      operationId: 'walletLogin',
      method: 'POST',
      url: '/v1/auth/wallet/login',
      summary: 'Exchange a signed sign-in message for a session token',
      auth: 'public',
      body: z.strictObject({ address: z.string().max(64), message: z.string().max(2048), signature: z.string().max(200) }),
      handler: async ({ body }, ctx) => {
        const r = await s.walletAuth.walletLogin(body, { clientIp: ctx.ip });
        return { sessionToken: r.sessionToken, rootAccountId: r.rootAccountId, expiresAt: toRfc3339(r.expiresAt) };
      },
    }),
    defineRoute({
      operationId: 'logout',
      method: 'POST',
      url: '/v1/auth/logout',
      summary: 'Revoke the session token of this request',
      auth: 'caller',
      handler: async (_input, ctx) => s.walletAuth.logout(ctx.caller),
    }),
    defineRoute({
      operationId: 'getTerms',
      method: 'GET',
      url: '/v1/auth/terms',
      summary: 'Current terms version and the one this account accepted',
      auth: 'caller',
      handler: async (_input, ctx) => s.terms.getTerms(ctx.caller),
    }),
    defineRoute({
      operationId: 'acceptTerms',
      method: 'POST',
      url: '/v1/auth/terms/accept',
      summary: 'Accept the current terms version',
      auth: 'caller',
      body: z.strictObject({ version: z.string().max(64) }),
      handler: async ({ body }, ctx) => s.terms.acceptTerms(ctx.caller, body),
    }),
    defineRoute({
      operationId: 'createSubaccount',
      method: 'POST',
      url: '/v1/auth/subaccounts',
      summary: 'Create a subaccount',
      auth: 'caller',
      body: createSubaccountBody,
      handler: async ({ body }, ctx) => {
        const r = await s.subaccounts.createSubaccount(ctx.caller, body);
        return { subaccount: subaccount(r.subaccount) };
      },
    }),
    defineRoute({
      operationId: 'listSubaccounts',
      method: 'GET',
      url: '/v1/auth/subaccounts',
      summary: 'List subaccounts, newest first',
      auth: 'caller',
      query: listSubaccountsQuery,
      handler: async ({ query }, ctx) => {
        const r = await s.subaccounts.listSubaccounts(ctx.caller, query);
        return { subaccounts: r.subaccounts.map(subaccount), nextPageToken: r.nextPageToken };
      },
    }),
  ];
}
