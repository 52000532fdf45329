import { presentTransfer } from '../../../../presenters/transfer.ts';
import { listTransfersQuery } from '../../../../services/ledger/listTransfers.schema.ts';
import { builder } from '../../builder.ts';
import { connectionFromPage, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { LedgerAccount } from './enums.ts';
import { TransferParty } from './transferParty.ts';

/** The /v1 shape (presenters/transfer.ts): GraphQL exposes the same fields, formatted the same way. */
const Transfer = builder.objectRef<ReturnType<typeof presentTransfer>>('Transfer').implement({
  description: 'Spec 2.11: one leg of a ledger transfer on the caller’s account',
  fields: (t) => ({
    account: t.exposeString('account', { description: '`FUNDING` or `TRADING`' }),
    amount: t.exposeString('amount', { description: '18 decimals' }),
    balanceAfter: t.exposeString('balanceAfter', { description: 'Available + held after the leg, 18 decimals' }),
    asset: t.exposeString('asset', { description: 'The unified asset id, as in /v1' }),
    isDebit: t.exposeBoolean('isDebit'),
    linkId: t.field({ type: 'Int64', description: 'The transfer id its legs share', resolve: (x) => x.linkId }),
    flowId: t.string({ nullable: true, description: 'The public id of the chain flow that moved it (base58), as in /v1', resolve: (x) => (x.flowId === '' ? null : x.flowId) }),
    transferCode: t.exposeString('transferCode'),
    timestamp: t.field({ type: 'Int64', description: 'Epoch microseconds', resolve: (x) => x.timestamp }),
    source: t.field({ type: TransferParty, resolve: (x) => x.source }),
    destination: t.field({ type: TransferParty, resolve: (x) => x.destination }),
  }),
});

builder.objectField(ViewerRef, 'transfers', (t) =>
  t.connection({
    type: Transfer,
    description: 'Oldest first unless reversed',
    args: { subaccountId: t.arg.string(), ledger: t.arg({ type: LedgerAccount }), asset: t.arg.string({ description: 'Symbol or unified id' }), reversed: t.arg.boolean() },
    resolve: (caller, args, ctx) => {
      parseArgs(listTransfersQuery, { subaccount_id: args.subaccountId, ledger: args.ledger, asset: args.asset, reversed: args.reversed }, 'query');
      return connectionFromPage(args, 100, async (page) => {
        const filters = defined({ subaccountId: args.subaccountId, ledger: args.ledger, asset: args.asset, reversed: args.reversed });
        const r = await ctx.services.ledger.listTransfers(caller, { ...page, ...filters });
        return { items: r.transfers.map(presentTransfer), nextPageToken: r.nextPageToken };
      });
    },
  }),
);
