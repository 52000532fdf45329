import { balancesSchema, presentBalances } from '../../../presenters/balance.ts';
import { operatorCreditSchema, presentOperatorCredit } from '../../../presenters/operatorCredit.ts';
import { internalTransferSchema, presentInternalTransfer, presentTransfer, transfersSchema } from '../../../presenters/transfer.ts';
import type { Services } from '../../../services/index.ts';
import { createInternalTransferBody } from '../../../services/ledger/createInternalTransfer.schema.ts';
import { listBalancesQuery } from '../../../services/ledger/listBalances.schema.ts';
import { listTransfersQuery } from '../../../services/ledger/listTransfers.schema.ts';
import { operatorCreditBody } from '../../../services/ledger/operatorCredit.schema.ts';
import { defineRoute } from '../route.ts';

export function ledgerRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'listBalances',
      method: 'GET',
      url: '/v1/balances',
      summary: 'Balances of the account in both ledgers (available and held, 18 decimals)',
      auth: 'caller',
      query: listBalancesQuery,
      response: balancesSchema,
      handler: async ({ query }, ctx) => presentBalances(await s.ledger.listBalances(ctx.caller, query)),
    }),
    defineRoute({
      operationId: 'listTransfers',
      method: 'GET',
      url: '/v1/transfers',
      summary: 'Ledger transfer legs of the account (spec 4.7, 2.11)',
      auth: 'caller',
      query: listTransfersQuery,
      response: transfersSchema,
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
          transfers: r.transfers.map(presentTransfer),
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
      body: createInternalTransferBody,
      response: internalTransferSchema,
      handler: async ({ body }, ctx) => presentInternalTransfer(await s.ledger.createInternalTransfer(ctx.caller, body)),
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
      body: operatorCreditBody,
      response: operatorCreditSchema,
      handler: async ({ body }) => presentOperatorCredit(await s.ledger.operatorCredit(body)),
    }),
  ];
}
