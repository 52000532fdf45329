import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { findOwnOrder, type TradingContext } from '../context.ts';
import type { Market } from '../../markets.ts';

/** One of the account's orders, by `orderId` or `clientOrderId`. */
export async function getOrder(ctx: TradingContext, caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string }) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  const row = await findOwnOrder(ctx, account, input);
  return { order: row, symbol: (ctx.markets.marketById(row.symbolId) as Market).symbol };
}
