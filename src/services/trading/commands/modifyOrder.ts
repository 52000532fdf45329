import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { findOwnOrder, type TradingContext } from '../context.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { parseScaled } from '../../../domain/money.ts';
import type { Market } from '../../markets.ts';
import { withOriginRefs } from '../queries/originRefs.ts';

/**
 * Changes a resting order's total quantity and/or price. A decrease keeps time
 * priority; an increase or a new price re-queues it (and may match). The reservation
 * follows the new remaining quantity and price.
 */
export async function modifyOrder(ctx: TradingContext, caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string; newQty?: string; newPrice?: string }) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  await ctx.limiter.admit('trading.modify', { caller, account });
  const row = await findOwnOrder(ctx, account, input);
  const market = ctx.markets.marketById(row.symbolId) as Market;
  if (input.newQty === undefined && input.newPrice === undefined) {
    throw invalidArgument('newQty', 'give newQty, newPrice or both', 'one-of');
  }
  const newTotal = input.newQty !== undefined ? parseScaled(input.newQty, market.baseQuantityScale, 'newQty') : undefined;
  let newPrice: bigint | undefined;
  if (input.newPrice !== undefined) {
    newPrice = parseScaled(input.newPrice, 9, 'newPrice');
    if (newPrice % market.tickSize !== 0n) throw invalidArgument('newPrice', 'is not a multiple of the tick size', 'tick-size');
  }
  const r = await ctx.engine.modify(account, market, row.id, { ...(newTotal !== undefined ? { newTotal } : {}), ...(newPrice !== undefined ? { newPrice } : {}) });
  const [order] = await withOriginRefs(ctx, [r.order]);
  return { order: order as NonNullable<typeof order>, market: r.market };
}
