import { presentBalance } from '../../../presenters/balance.ts';
import { presentInternalTransfer, presentTransfer } from '../../../presenters/transfer.ts';
import { createInternalTransferBody } from '../../../services/ledger/createInternalTransfer.schema.ts';
import { listBalancesQuery } from '../../../services/ledger/listBalances.schema.ts';
import { listTransfersQuery } from '../../../services/ledger/listTransfers.schema.ts';
import { builder } from '../builder.ts';
import { parseArgs } from '../validate.ts';
import { callerOf, connectionFromPage, defined } from '../connections.ts';
import { ViewerRef } from './viewer.ts';

/** Balances and ledger transfers over GraphQL: the calls and field names of /v1 (routes/ledger.ts). */

const LedgerAccount = builder.enumType('LedgerAccount', { values: ['FUNDING', 'TRADING'] as const });

/** The /v1 shape (presenters/transfer.ts): GraphQL exposes the same fields, formatted the same way. */
type TransferShape = ReturnType<typeof presentTransfer>;

const TransferParty = builder.objectRef<TransferShape['source']>('TransferParty').implement({
  fields: (t) => ({
    accountId: t.exposeString('accountId', { description: 'Empty unless it is one of the caller’s own accounts' }),
    address: t.exposeString('address', { description: 'Empty when none' }),
    chainId: t.exposeInt('chainId', { description: '0 when none' }),
    kind: t.exposeString('kind'),
  }),
});

const Transfer = builder.objectRef<TransferShape>('Transfer').implement({
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

/** A row of GET /v1/balances as presenters/balance.ts writes it, so the two cannot drift. */
const Balance = builder
  .objectRef<ReturnType<typeof presentBalance>>('Balance')
  .implement({
    fields: (t) => ({
      ledgerAccount: t.exposeString('ledgerAccount'),
      asset: t.exposeString('asset'),
      available: t.exposeString('available', { description: '18 decimals' }),
      held: t.exposeString('held', { description: '18 decimals' }),
      assetId: t.exposeString('assetId', { description: 'The unified asset id' }),
      total: t.exposeString('total', { description: '18 decimals: available + held' }),
    }),
  });

builder.objectFields(ViewerRef, (t) => ({
  balances: t.field({
    type: [Balance],
    args: { subaccountId: t.arg.string() },
    resolve: async (caller, args, ctx) => {
      parseArgs(listBalancesQuery, args, 'query');
      return (await ctx.services.ledger.listBalances(caller, defined(args) ?? {})).balances.map(presentBalance);
    },
  }),
  transfers: t.connection({
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
}));

const InternalTransferInput = builder.inputType('InternalTransferInput', {
  description: 'Between FUNDING and TRADING, or between the root account and its subaccounts',
  fields: (t) => ({
    asset: t.string({ required: true }),
    amount: t.string({ required: true }),
    fromLedger: t.field({ type: LedgerAccount, required: true }),
    toLedger: t.field({ type: LedgerAccount, required: true }),
    fromSubaccountId: t.string(),
    toSubaccountId: t.string(),
  }),
});

const InternalTransferResult = builder.objectRef<ReturnType<typeof presentInternalTransfer>>('InternalTransferResult').implement({
  fields: (t) => ({
    linkId: t.field({ type: 'Int64', resolve: (r) => r.linkId }),
    timestamp: t.field({ type: 'Int64', description: 'Epoch microseconds', resolve: (r) => r.timestamp }),
  }),
});

builder.mutationField('internalTransfer', (t) =>
  t.field({
    type: InternalTransferResult,
    args: { input: t.arg({ type: InternalTransferInput, required: true }) },
    resolve: async (_root, { input }, ctx) => presentInternalTransfer(await ctx.services.ledger.createInternalTransfer(callerOf(ctx), parseArgs(createInternalTransferBody, input))),
  }),
);
