import { presentBalance } from '../../../../presenters/balance.ts';
import { listBalancesQuery } from '../../../../services/ledger/listBalances.schema.ts';
import { builder } from '../../builder.ts';
import { defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';

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

builder.objectField(ViewerRef, 'balances', (t) =>
  t.field({
    type: [Balance],
    args: { subaccountId: t.arg.string() },
    resolve: async (caller, args, ctx) => {
      parseArgs(listBalancesQuery, args, 'query');
      return (await ctx.services.ledger.listBalances(caller, defined(args) ?? {})).balances.map(presentBalance);
    },
  }),
);
