import type { Caller } from '../../../auth/caller.ts';
import type { Market } from '../../markets.ts';
import type { TradingContext } from '../context.ts';
import { namedTrigger } from '../queries/getTrigger.ts';

/** Cancels one of the account's live triggers, by triggerId or clientTriggerId; its hold is released. */
export async function cancelTrigger(ctx: TradingContext, caller: Caller, input: { triggerId?: string; clientTriggerId?: string; subaccountId?: string }) {
  const { account, trigger } = await namedTrigger(ctx, caller, input, 'trading.cancel');
  const row = await ctx.engine.cancelTrigger(account.id, trigger.id);
  return { trigger: row, account: account.publicId, market: ctx.markets.marketById(row.symbolId) as Market };
}
