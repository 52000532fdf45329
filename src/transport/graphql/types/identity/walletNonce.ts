import { createWalletNonceBody } from '../../../../services/createWalletNonce.schema.ts';
import { builder } from '../../builder.ts';
import { clientIpOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

const WalletNonce = builder
  .objectRef<{ nonce: string; message: string; expiresAt: Date }>('WalletNonce')
  .implement({
    fields: (t) => ({
      nonce: t.exposeString('nonce'),
      message: t.exposeString('message'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    }),
  });

builder.mutationField('requestWalletNonce', (t) =>
  t.field({
    type: WalletNonce,
    args: { address: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.walletAuth.createWalletNonce(parseArgs(createWalletNonceBody, args), { clientIp: clientIpOf(ctx) }),
  }),
);
