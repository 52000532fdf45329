import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { marketOf, type TradingContext } from '../context.ts';

/** Cancels every open order of the account in scope, in one job: all of it or none. */
export async function cancelAllOrders(ctx: TradingContext, caller: Caller, input: { subaccountId?: string; symbol?: string; side?: 'BUY' | 'SELL' }) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  await ctx.limiter.admit('trading.cancel_all', { caller, account });
  const only = input.symbol !== undefined ? marketOf(ctx, input.symbol, 'symbol') : undefined;
  return ctx.engine.cancelWhere(account.id, only, input.side, 'CANCEL_ALL');
}
