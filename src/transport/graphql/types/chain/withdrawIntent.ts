import { builder } from '../../builder.ts';
import { decodeBytes } from '../../bytes.ts';
import { callerOf } from '../../connections.ts';

const WithdrawIntent = builder.objectRef<{ intentId: string }>('WithdrawIntent').implement({
  description: 'A withdrawal from Trading, followed through its flow',
  fields: (t) => ({ intentId: t.exposeString('intentId') }),
});

builder.mutationField('createTradingWithdraw', (t) =>
  t.field({
    type: WithdrawIntent,
    description: 'Withdraw from Trading, signed by the calling API key over the canonical payload bytes (as POST /v1/chain/trading-withdraws)',
    args: { payload: t.arg.string({ required: true, description: 'base64 of the canonical payload bytes' }), payloadSignature: t.arg.string({ required: true, description: 'base64 Ed25519 signature' }) },
    resolve: (_root, args, ctx) => ctx.services.chain.createTradingWithdraw(callerOf(ctx), { payload: decodeBytes(args.payload, 'payload'), payloadSignature: decodeBytes(args.payloadSignature, 'payloadSignature') }),
  }),
);

builder.mutationField('createWalletTradingWithdraw', (t) =>
  t.field({
    type: WithdrawIntent,
    description: 'Withdraw from Trading, authorized by the account wallet\'s EIP-191 signature of the authorization message (as POST /v1/chain/trading-withdraws:wallet)',
    args: {
      payload: t.arg.string({ required: true, description: 'base64 of the canonical payload bytes' }),
      payloadSignature: t.arg.string({ required: true, description: 'base64 of the 65-byte signature' }),
      signerWallet: t.arg.string({ required: true }),
      subaccountId: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.chain.createWalletTradingWithdraw(callerOf(ctx), {
        payload: decodeBytes(args.payload, 'payload'),
        payloadSignature: decodeBytes(args.payloadSignature, 'payloadSignature'),
        signerWallet: args.signerWallet,
        ...(args.subaccountId ? { subaccountId: args.subaccountId } : {}),
      }),
  }),
);
