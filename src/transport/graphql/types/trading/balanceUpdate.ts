import type { Asset } from '../../../../services/markets.ts';
import type { BalanceEventPayload } from '../../../../services/trading/index.ts';
import { e18 } from '../../../../presenters/scalars.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { guardedStream } from '../../guardedStream.ts';

const BalanceUpdate = builder.objectRef<BalanceEventPayload>('BalanceUpdate').implement({
  description: 'A balance of the caller’s account as a durable change left it: a row of `viewer.balances`, zero rows included (a balance emptied)',
  fields: (t) => ({
    ledgerAccount: t.exposeString('ledgerAccount', { description: '`FUNDING` or `TRADING`' }),
    asset: t.string({ resolve: (b, _args, ctx) => (ctx.services.markets.asset(b.assetId) as Asset).symbol }),
    assetId: t.string({ description: 'The unified asset id', resolve: (b) => String(b.assetId) }),
    available: t.string({ description: '18 decimals', resolve: (b) => e18(b.available) }),
    held: t.string({ description: '18 decimals', resolve: (b) => e18(b.held) }),
    total: t.string({ description: '18 decimals: available + held', resolve: (b) => e18(b.available + b.held) }),
    sequence: t.expose('sequence', {
      type: 'Int64',
      description: 'The update’s position in the trading journal, unique and increasing in commit order. Resubscribe with `after:` set to the last one received to get every later update exactly once',
    }),
  }),
});

builder.subscriptionField('balanceUpdates', (t) =>
  t.field({
    type: BalanceUpdate,
    description: 'Every balance of the caller’s account a durable change moved (trades, orders’ and triggers’ holds, transfers, deposits, withdrawals), as the change left it',
    args: { subaccountId: t.arg.string(), after: t.arg({ type: 'Int64', description: 'Resume: first every update after this sequence, then the live stream' }) },
    subscribe: async (_root, args, ctx) =>
      guardedStream(ctx, callerOf(ctx), await ctx.services.orders.subscribe(callerOf(ctx), 'balances', args.subaccountId ?? undefined, args.after ?? undefined)),
    resolve: (payload) => payload,
  }),
);
