import { presentDestinationCheck } from '../../../../presenters/withdraw.ts';
import { validateWithdrawDestinationBody } from '../../../../services/chain/validateWithdrawDestination.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

const WithdrawDestinationCheck = builder.objectRef<ReturnType<typeof presentDestinationCheck>>('WithdrawDestinationCheck').implement({
  fields: (t) => ({
    valid: t.exposeBoolean('valid'),
    normalizedAddress: t.exposeString('normalizedAddress'),
    reason: t.exposeString('reason'),
    isInternal: t.exposeBoolean('isInternal'),
    inAddressBook: t.exposeBoolean('inAddressBook'),
    addressBookEntryId: t.exposeString('addressBookEntryId'),
    allowListOnly: t.exposeBoolean('allowListOnly'),
    allowed: t.exposeBoolean('allowed'),
  }),
});

builder.mutationField('validateWithdrawDestination', (t) =>
  t.field({
    type: WithdrawDestinationCheck,
    description: 'Checks an address on a network before withdrawing there (as POST /v1/chain/withdraw-destinations:validate; charges WITHDRAW_VALIDATE)',
    args: { chainId: t.arg.int({ required: true }), address: t.arg.string({ required: true }), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => presentDestinationCheck(await ctx.services.chain.validateWithdrawDestination(callerOf(ctx), parseArgs(validateWithdrawDestinationBody, args))),
  }),
);
