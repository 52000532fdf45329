import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { marketOf, type TradingContext } from '../context.ts';

/**
 * Cancels the account's live triggers, of one symbol if given, in one job: all of them or
 * none, holds released. `includeAttached` (default true) takes the legs protecting orders
 * and filled positions too, as cancel-all of orders does (docs/api-decisions.md).
 */
export async function cancelAllTriggers(ctx: TradingContext, caller: Caller, input: { subaccountId?: string; symbol?: string; includeAttached?: boolean }) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  await ctx.limiter.admit('trading.cancel_all', { caller, account });
  const only = input.symbol !== undefined ? marketOf(ctx, input.symbol, 'symbol') : undefined;
  return ctx.engine.cancelAllTriggers(account.id, only, input.includeAttached ?? true);
}
