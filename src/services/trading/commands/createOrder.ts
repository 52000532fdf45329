import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { marketOf, type TradingContext } from '../context.ts';
import { validateNewOrder, type CreateOrderInput } from '../orderInput.ts';

/** Spec 4.5 Create Order: who may place, and what the request says, checked before the engine places it. */
export async function createOrder(ctx: TradingContext, caller: Caller, input: CreateOrderInput) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  await ctx.limiter.admit('trading.place', { caller, account });
  const market = marketOf(ctx, input.order.symbol);
  const v = validateNewOrder(input, market, ctx.clock.nowNs());
  return ctx.engine.place(account, market, v, input.order);
}
