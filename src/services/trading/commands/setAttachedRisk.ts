import type { Caller } from '../../../auth/caller.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import type { Market } from '../../markets.ts';
import { findOwnOrder, type TradingContext } from '../context.ts';
import { validateAttachedRisk, type AttachedRiskInput } from '../orderInput.ts';
import type { OrderRow } from '../writeSet.ts';

/**
 * Sets an order's attached risk anew (Kraken's edit of conditional closes): its live legs
 * are replaced by `attachedRisk`'s in one job. An open order's legs wait for its fills as on
 * creation; an ended order that filled has its position protected. Charged as a modify.
 */
export async function setAttachedRisk(ctx: TradingContext, caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string; attachedRisk: AttachedRiskInput }) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  await ctx.limiter.admit('trading.modify', { caller, account });
  const order = await findOwnOrder(ctx, account, input);
  const market = ctx.markets.marketById(order.symbolId) as Market;
  if (!order.isOpen) {
    if (order.closeReason === 'REPLACED') throw invalidArgument('orderId', 'the order was replaced: its legs are its latest generation\'s, name that one', 'replaced');
    if (order.inheritedCumQty + order.cumQty === 0n) throw invalidArgument('orderId', `the order is ${order.status} with nothing filled: there is no position to protect`, 'no-position');
  }
  const legs = validateAttachedRisk(input.attachedRisk, order.side, order.orderType === 'MARKET' ? undefined : order.price, market);
  const legTriggers = await ctx.engine.setAttachedRisk(account, market, order.id, order.isOpen ? null : order, legs);
  return { order, legTriggers };
}
