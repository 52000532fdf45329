import { walletLoginBody } from '../../../../services/walletLogin.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf, clientIpOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

const Session = builder
  .objectRef<{ sessionToken: string; rootAccountId: string; expiresAt: Date }>('Session')
  .implement({
    fields: (t) => ({
      sessionToken: t.exposeString('sessionToken'),
      rootAccountId: t.exposeString('rootAccountId'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    }),
  });

builder.mutationFields((t) => ({
  walletLogin: t.field({
    type: Session,
    args: {
      address: t.arg.string({ required: true }),
      message: t.arg.string({ required: true }),
      signature: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) => ctx.services.walletAuth.walletLogin(parseArgs(walletLoginBody, args), { clientIp: clientIpOf(ctx) }),
  }),
  logout: t.boolean({
    resolve: async (_root, _args, ctx) => {
      await ctx.services.walletAuth.logout(callerOf(ctx));
      return true;
    },
  }),
}));
