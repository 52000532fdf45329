import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { marketOf, type TradingContext } from '../context.ts';
import { checkSameTrigger, type TriggerSpec } from '../triggerRules.ts';
import { validateTrigger, type CreateTriggerInput } from '../triggerInput.ts';

/** Spec 4.6 Create Trigger: a standalone stop-loss or take-profit, funded and armed on acceptance. */
export async function createTrigger(ctx: TradingContext, caller: Caller, input: CreateTriggerInput) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  await ctx.limiter.admit('trading.place', { caller, account });
  const market = marketOf(ctx, input.trigger.symbol, 'trigger.symbol');
  const spec = validateTrigger(input, market, ctx.clock.nowNs());
  if (spec.clientTriggerId === null) {
    const { row, existing } = await ctx.engine.createTrigger(account, market, spec);
    return { trigger: row, existing, market };
  }
  // A terminal trigger is no longer live in the engine's memory: its id is found in the
  // table, or, when it ended after this read, in the engine's ended ids, kept for the read.
  const read = ctx.engine.holdEndedTriggerIds();
  try {
    await ctx.engine.readable(account.id);
    const ended = await ctx.db.trigger.findUnique({ where: { accountId_clientTriggerId: { accountId: account.id, clientTriggerId: spec.clientTriggerId } } });
    if (ended) return { trigger: checkSameTrigger(ended as typeof ended & TriggerSpec['row'], spec), existing: true, market };
    const { row, existing } = await ctx.engine.createTrigger(account, market, spec, read);
    return { trigger: row, existing, market };
  } finally {
    read.release();
  }
}
