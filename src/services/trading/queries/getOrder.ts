import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { findOwnOrder, type TradingContext } from '../context.ts';
import type { Market } from '../../markets.ts';
import { legsOf } from './getOpenOrders.ts';
import { withOriginRefs } from './originRefs.ts';

/**
 * One of the account's orders, by `orderId` or `clientOrderId`; with `include.attachedRisk`
 * (GraphQL, when the field is selected) its legs as stored with their triggers' state.
 */
export async function getOrder(ctx: TradingContext, caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string }, include: { attachedRisk?: boolean } = {}) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  const [order] = await withOriginRefs(ctx, [await findOwnOrder(ctx, account, input)]);
  const row = order as NonNullable<typeof order>;
  const legs = include.attachedRisk === true ? await legsOf(ctx, [row.id]) : [];
  return {
    order: row,
    symbol: (ctx.markets.marketById(row.symbolId) as Market).symbol,
    ...(legs.length > 0 ? { attachedRisk: { oco: row.oco, legs } } : {}),
  };
}
