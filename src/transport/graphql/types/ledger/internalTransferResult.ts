import { presentInternalTransfer } from '../../../../presenters/transfer.ts';
import { createInternalTransferBody } from '../../../../services/ledger/createInternalTransfer.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { LedgerAccount } from './enums.ts';

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
