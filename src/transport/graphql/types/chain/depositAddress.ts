import { presentDepositAddress } from '../../../../presenters/depositAddress.ts';
import { createDepositAddressBody } from '../../../../services/chain/createDepositAddress.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

const DepositAddress = builder.objectRef<{ chainId: number; depositAddress: string }>('DepositAddress').implement({
  description: 'Spec 2.15',
  fields: (t) => ({ chainId: t.exposeInt('chainId'), depositAddress: t.exposeString('depositAddress') }),
});

builder.mutationField('createDepositAddress', (t) =>
  t.field({
    type: DepositAddress,
    description: 'Creates or returns the deposit address of an account target on a chain (as POST /v1/chain/deposit-addresses)',
    args: { chainId: t.arg.int({ required: true }), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      return presentDepositAddress((await ctx.services.chain.createDepositAddress(callerOf(ctx), parseArgs(createDepositAddressBody, args))).depositAddress);
    },
  }),
);
