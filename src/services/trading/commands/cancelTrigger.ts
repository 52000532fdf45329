import type { Caller } from '../../../auth/caller.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import type { Market } from '../../markets.ts';
import type { TradingContext } from '../context.ts';
import { findOwnTrigger } from '../queries/getTrigger.ts';

/** Cancels one of the account's live triggers, by triggerId or clientTriggerId; its hold is released. */
export async function cancelTrigger(ctx: TradingContext, caller: Caller, input: { triggerId?: string; clientTriggerId?: string; subaccountId?: string }) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  if ((input.triggerId === undefined) === (input.clientTriggerId === undefined)) {
    throw invalidArgument('triggerId', 'give exactly one of triggerId and clientTriggerId', 'one-of');
  }
  await ctx.limiter.admit('trading.cancel', { caller, account });
  const found = await findOwnTrigger(ctx, account.id, input);
  const row = await ctx.engine.cancelTrigger(account.id, found.id);
  return { trigger: row, account: account.publicId, market: ctx.markets.marketById(row.symbolId) as Market };
}
