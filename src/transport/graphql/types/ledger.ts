import { decimalToBigInt, formatScaled } from '../../../domain/money.ts';
import type { LedgerService } from '../../../services/trading/ledger.ts';
import { builder } from '../builder.ts';
import { callerOf, connectionFromPage, defined } from '../connections.ts';
import { ViewerRef } from './viewer.ts';

/** Ledger transfers over GraphQL: the calls and field names of /v1 (routes/ledger.ts). */

const e18 = (v: { toFixed(digits?: number): string }) => formatScaled(decimalToBigInt(v), 18);

const LedgerAccount = builder.enumType('LedgerAccount', { values: ['FUNDING', 'TRADING'] as const });

type TransferShape = Awaited<ReturnType<LedgerService['listTransfers']>>['transfers'][number];

const TransferParty = builder
  .objectRef<{ accountId: string; address: string; chainId: number; kind: string }>('TransferParty')
  .implement({
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
    account: t.string({ description: '`FUNDING` or `TRADING`', resolve: ({ leg }) => leg.ledgerAccount }),
    amount: t.string({ description: '18 decimals', resolve: ({ leg }) => e18(leg.amount) }),
    balanceAfter: t.string({ description: 'Available + held after the leg, 18 decimals', resolve: ({ leg }) => e18(leg.balanceAfter) }),
    asset: t.string({ description: 'The unified asset id, as in /v1', resolve: ({ leg }) => String(leg.assetId) }),
    isDebit: t.boolean({ resolve: ({ leg }) => leg.isDebit }),
    linkId: t.field({ type: 'Int64', description: 'The transfer id its legs share', resolve: ({ leg }) => leg.transferId }),
    flowId: t.field({ type: 'Int64', nullable: true, resolve: ({ leg }) => leg.flowId }),
    transferCode: t.string({ resolve: ({ leg }) => leg.transferCode }),
    timestamp: t.field({ type: 'Int64', description: 'Epoch microseconds', resolve: ({ leg }) => leg.timestampUs }),
    source: t.field({
      type: TransferParty,
      resolve: ({ leg, sourceAccountId }) => ({ accountId: sourceAccountId, address: leg.sourceAddress ?? '', chainId: leg.sourceChainId ?? 0, kind: leg.sourceKind ?? 'SYSTEM' }),
    }),
    destination: t.field({
      type: TransferParty,
      resolve: ({ leg, destinationAccountId }) => ({
        accountId: destinationAccountId,
        address: leg.destinationAddress ?? '',
        chainId: leg.destinationChainId ?? 0,
        kind: leg.destinationKind ?? 'SYSTEM',
      }),
    }),
  }),
});

builder.objectFields(ViewerRef, (t) => ({
  transfers: t.connection({
    type: Transfer,
    description: 'Oldest first unless reversed',
    args: { subaccountId: t.arg.string(), ledger: t.arg({ type: LedgerAccount }), asset: t.arg.string({ description: 'Symbol or unified id' }), reversed: t.arg.boolean() },
    resolve: (caller, args, ctx) =>
      connectionFromPage(args, 100, async (page) => {
        const filters = defined({ subaccountId: args.subaccountId, ledger: args.ledger, asset: args.asset, reversed: args.reversed });
        const r = await ctx.services.ledger.listTransfers(caller, { ...page, ...filters });
        return { items: r.transfers, nextPageToken: r.nextPageToken };
      }),
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

const InternalTransferResult = builder.objectRef<{ linkId: bigint; timestampUs: bigint }>('InternalTransferResult').implement({
  fields: (t) => ({
    linkId: t.field({ type: 'Int64', resolve: (r) => r.linkId }),
    timestamp: t.field({ type: 'Int64', description: 'Epoch microseconds', resolve: (r) => r.timestampUs }),
  }),
});

builder.mutationField('internalTransfer', (t) =>
  t.field({
    type: InternalTransferResult,
    args: { input: t.arg({ type: InternalTransferInput, required: true }) },
    resolve: (_root, { input: { fromSubaccountId, toSubaccountId, ...transfer } }, ctx) =>
      ctx.services.ledger.internalTransfer(callerOf(ctx), { ...transfer, ...defined({ fromSubaccountId, toSubaccountId }) }),
  }),
);
