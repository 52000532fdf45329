import type { Caller } from '../../../auth/caller.ts';
import type { Market } from '../../markets.ts';
import type { TradingContext } from '../context.ts';
import { namedTrigger } from '../queries/getTrigger.ts';

/** Arms a paused trigger again; refused while the last price is at or through it. */
export async function resumeTrigger(ctx: TradingContext, caller: Caller, input: { triggerId?: string; clientTriggerId?: string; subaccountId?: string }) {
  const { account, trigger } = await namedTrigger(ctx, caller, input, 'trading.resume');
  const row = await ctx.engine.resumeTrigger(account.id, trigger.id);
  return { trigger: row, account: account.publicId, market: ctx.markets.marketById(row.symbolId) as Market };
}
