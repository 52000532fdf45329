import type { Caller } from '../../../auth/caller.ts';
import type { Market } from '../../markets.ts';
import type { TradingContext } from '../context.ts';
import { namedTrigger } from '../queries/getTrigger.ts';

/** Pauses one of the account's armed triggers: it stops watching prices, its funds stay held. */
export async function pauseTrigger(ctx: TradingContext, caller: Caller, input: { triggerId?: string; clientTriggerId?: string; subaccountId?: string }) {
  const { account, trigger } = await namedTrigger(ctx, caller, input, 'trading.pause');
  const row = await ctx.engine.pauseTrigger(account.id, trigger.id);
  return { trigger: row, account: account.publicId, market: ctx.markets.marketById(row.symbolId) as Market };
}
