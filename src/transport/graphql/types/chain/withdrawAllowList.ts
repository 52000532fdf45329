import { setWithdrawAllowListBody } from '../../../../services/chain/setWithdrawAllowList.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

builder.queryField('withdrawAllowListOnly', (t) =>
  t.boolean({ description: 'Whether the root account withdraws only to its address book', resolve: async (_root, _args, ctx) => (await ctx.services.chain.getWithdrawAllowList(callerOf(ctx))).allowListOnly }),
);

builder.mutationField('setWithdrawAllowList', (t) =>
  t.boolean({
    description: 'Switches the withdrawal allow-list on or off (an API key may only switch it on); answers the new state',
    args: { enabled: t.arg.boolean({ required: true }) },
    resolve: async (_root, args, ctx) => (await ctx.services.chain.setWithdrawAllowList(callerOf(ctx), parseArgs(setWithdrawAllowListBody, args))).allowListOnly,
  }),
);
