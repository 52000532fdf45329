import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { cancelOne, marketOf, type TradingContext } from '../context.ts';

/** Spec 4.5 Cancel Order. */
export async function cancelOrder(ctx: TradingContext, caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string; symbol?: string }) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  // The routing hint is checked, not trusted: an unknown symbol is a bad request, and
  // an order of another market is not the order the client meant.
  const hinted = input.symbol !== undefined ? marketOf(ctx, input.symbol, 'symbol') : undefined;
  await ctx.limiter.admit('trading.cancel', { caller, account });
  return cancelOne(ctx, account, input, '', 'one', hinted);
}
