import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { findOwnOrder, marketOf, type TradingContext } from '../context.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { validateNewOrder, type CreateOrderInput } from '../orderInput.ts';

/**
 * Replaces an open order with the next generation of its lineage: the old order ends
 * REPLACED, the new one inherits its filled quantity (`inheritedCumQty`) and keeps
 * `lineage.id`. Both happen in one job, so the pair is never half-done.
 */
export async function replaceOrder(ctx: TradingContext, caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string; order: CreateOrderInput['order'] }) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  await ctx.limiter.admit('trading.place', { caller, account });
  const old = await findOwnOrder(ctx, account, input);
  const market = marketOf(ctx, input.order.symbol);
  if (market.symbolId !== old.symbolId) throw invalidArgument('order.symbol', 'must be the replaced order’s symbol', 'same-as-replaced');
  if (input.order.side !== old.side) throw invalidArgument('order.side', 'must be the replaced order’s side', 'same-as-replaced');
  const v = validateNewOrder({ order: input.order }, market, ctx.clock.nowNs());
  if (v.variant === 'marketIoc') throw invalidArgument('order.marketIoc', 'a replacement is a limit order', 'limit-only');
  return ctx.engine.replace(account, market, old.id, v, input.order);
}
