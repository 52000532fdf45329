import { z } from 'zod';
import { formatScaled } from '../../../domain/money.ts';
import type { Services } from '../../../services/index.ts';
import { transferView } from '../../../services/trading/index.ts';
import { queryBool, queryInt } from '../codec.ts';
import { defineRoute } from '../route.ts';

const LEDGER = z.enum(['FUNDING', 'TRADING']);
const e18 = (v: bigint) => formatScaled(v, 18);

export function ledgerRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'listBalances',
      method: 'GET',
      url: '/v1/balances',
      summary: 'Balances of the account in both ledgers (available and held, 18 decimals)',
      auth: 'caller',
      query: z.strictObject({ subaccountId: z.string().max(64).optional() }),
      handler: async ({ query }, ctx) => {
        const r = await s.ledger.listBalances(ctx.caller, query);
        return {
          accountId: r.accountId,
          balances: r.balances.map((b) => ({
            ledgerAccount: b.ledgerAccount,
            asset: b.asset,
            assetId: String(b.assetId),
            available: e18(b.available),
            held: e18(b.held),
            total: e18(b.available + b.held),
          })),
        };
      },
    }),
    defineRoute({
      operationId: 'listTransfers',
      method: 'GET',
      url: '/v1/transfers',
      summary: 'Ledger transfer legs of the account (spec 4.7, 2.11)',
      auth: 'caller',
      query: z.strictObject({
        limit: queryInt(1, 1000).optional(),
        page_token: z.string().max(2048).optional(),
        reversed: queryBool().optional(),
        subaccount_id: z.string().max(64).optional(),
        ledger: LEDGER.optional(),
        asset: z.string().max(16).optional(),
      }),
      handler: async ({ query }, ctx) => {
        const r = await s.ledger.listTransfers(ctx.caller, {
          ...(query.subaccount_id ? { subaccountId: query.subaccount_id } : {}),
          ...(query.ledger ? { ledger: query.ledger } : {}),
          ...(query.asset ? { asset: query.asset } : {}),
          ...(query.reversed !== undefined ? { reversed: query.reversed } : {}),
          ...(query.limit ? { limit: query.limit } : {}),
          ...(query.page_token ? { pageToken: query.page_token } : {}),
        });
        return {
          transfers: r.transfers.map(transferView),
          nextPageToken: r.nextPageToken,
        };
      },
    }),
    defineRoute({
      operationId: 'createInternalTransfer',
      method: 'POST',
      url: '/v1/transfers/internal',
      summary: 'Move funds between FUNDING and TRADING, or between the root account and its subaccounts',
      auth: 'caller',
      body: z.strictObject({
        asset: z.string().max(16),
        amount: z.string().max(64),
        fromLedger: LEDGER,
        toLedger: LEDGER,
        fromSubaccountId: z.string().max(64).optional(),
        toSubaccountId: z.string().max(64).optional(),
      }),
      handler: async ({ body }, ctx) => {
        const r = await s.ledger.internalTransfer(ctx.caller, body);
        return { linkId: r.linkId.toString(), timestamp: r.timestampUs.toString() };
      },
    }),
  ];
}

export function operatorLedgerRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'operatorCredit',
      method: 'POST',
      url: '/operator/v1/credits',
      summary: 'Credit an account through a DEPOSIT ledger transfer (stands in for the chain)',
      auth: 'operator',
      body: z.strictObject({ accountId: z.string().max(64), asset: z.string().max(16), amount: z.string().max(64), ledgerAccount: LEDGER }),
      handler: async ({ body }) => {
        const r = await s.ledger.credit(body);
        return {
          linkId: r.linkId.toString(),
          balance: { accountId: r.accountId, asset: r.asset, ledgerAccount: r.ledgerAccount, available: e18(r.available), held: e18(r.held) },
        };
      },
    }),
  ];
}
