import type { Caller } from '../../../auth/caller.ts';
import type { Market } from '../../markets.ts';
import type { TradingContext } from '../context.ts';
import { namedTrigger } from '../queries/getTrigger.ts';
import { validateTriggerChange, type ModifyTriggerInput } from '../triggerInput.ts';

/**
 * Amends one of the account's live triggers (Binance's and OKX's amend of algo orders):
 * its trigger price, limit-child price, quantity or trailing distance; the hold follows in
 * the same job, and a refusal changes nothing. Charged as an order modify.
 */
export async function modifyTrigger(ctx: TradingContext, caller: Caller, input: ModifyTriggerInput & { triggerId?: string; clientTriggerId?: string; subaccountId?: string }) {
  const { account, trigger } = await namedTrigger(ctx, caller, input, 'trading.modify');
  const market = ctx.markets.marketById(trigger.symbolId) as Market;
  const change = validateTriggerChange(input, market, trigger);
  const row = await ctx.engine.modifyTrigger(account, market, trigger.id, change);
  return { trigger: row, account: account.publicId, market };
}
