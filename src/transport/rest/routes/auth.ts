import { createSubaccountBody } from '../../../services/accounts/createSubaccount.schema.ts';
import { listSubaccountsQuery } from '../../../services/accounts/listSubaccounts.schema.ts';
import { acceptTermsBody } from '../../../services/acceptTerms.schema.ts';
import { createWalletNonceBody } from '../../../services/createWalletNonce.schema.ts';
import { walletLoginBody } from '../../../services/walletLogin.schema.ts';
import { emptySchema, presentEmpty, presentSession, presentWalletNonce, sessionSchema, walletNonceSchema } from '../../../presenters/session.ts';
import { presentSubaccount, subaccountEnvelopeSchema, subaccountsSchema } from '../../../presenters/subaccount.ts';
import { presentTerms, termsSchema } from '../../../presenters/terms.ts';
import type { Services } from '../../../services/index.ts';
import { defineRoute } from '../route.ts';

/** Sessions, terms and subaccounts (spec 5; shapes are our choice, see docs/api-decisions.md). */
export function authRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'createWalletNonce',
      method: 'POST',
      url: '/v1/auth/wallet/nonce',
      summary: 'Issue a single-use sign-in message for an EVM address',
      auth: 'public',
      body: createWalletNonceBody,
      response: walletNonceSchema,
      handler: async ({ body }, ctx) => presentWalletNonce(await s.walletAuth.createWalletNonce(body, { clientIp: ctx.ip })),
    }),
    defineRoute({
      operationId: 'walletLogin',
      method: 'POST',
      url: '/v1/auth/wallet/login',
      summary: 'Exchange a signed sign-in message for a session token',
      auth: 'public',
      body: walletLoginBody,
      response: sessionSchema,
      handler: async ({ body }, ctx) => presentSession(await s.walletAuth.walletLogin(body, { clientIp: ctx.ip })),
    }),
    defineRoute({
      operationId: 'logout',
      method: 'POST',
      url: '/v1/auth/logout',
      summary: 'Revoke the session token of this request',
      auth: 'caller',
      response: emptySchema,
      handler: async (_input, ctx) => {
        await s.walletAuth.logout(ctx.caller);
        return presentEmpty();
      },
    }),
    defineRoute({
      operationId: 'getTerms',
      method: 'GET',
      url: '/v1/auth/terms',
      summary: 'Current terms version and the one this account accepted',
      auth: 'caller',
      response: termsSchema,
      handler: async (_input, ctx) => presentTerms(await s.terms.getTerms(ctx.caller)),
    }),
    defineRoute({
      operationId: 'acceptTerms',
      method: 'POST',
      url: '/v1/auth/terms/accept',
      summary: 'Accept the current terms version',
      auth: 'caller',
      body: acceptTermsBody,
      response: termsSchema,
      handler: async ({ body }, ctx) => presentTerms(await s.terms.acceptTerms(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'createSubaccount',
      method: 'POST',
      url: '/v1/auth/subaccounts',
      summary: 'Create a subaccount',
      auth: 'caller',
      body: createSubaccountBody,
      response: subaccountEnvelopeSchema,
      handler: async ({ body }, ctx) => ({ subaccount: presentSubaccount((await s.subaccounts.createSubaccount(ctx.caller, body)).subaccount) }),
    }),
    defineRoute({
      operationId: 'listSubaccounts',
      method: 'GET',
      url: '/v1/auth/subaccounts',
      summary: 'List subaccounts, newest first',
      auth: 'caller',
      query: listSubaccountsQuery,
      response: subaccountsSchema,
      handler: async ({ query }, ctx) => {
        const r = await s.subaccounts.listSubaccounts(ctx.caller, query);
        return { subaccounts: r.subaccounts.map(presentSubaccount), nextPageToken: r.nextPageToken };
      },
    }),
  ];
}
