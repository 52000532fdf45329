import type { Caller } from '../../../auth/caller.ts';
import { ApiError } from '../../../domain/errors.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import type { Market } from '../../markets.ts';
import type { TradingContext } from '../context.ts';

const notFound = () => new ApiError('not-found', 'trigger not found', { code: 'TRIGGER_NOT_FOUND' });

/** The account's trigger named by its public id or clientTriggerId, as projected (another account's: 404). */
export async function findOwnTrigger(ctx: TradingContext, accountId: bigint, input: { triggerId?: string; clientTriggerId?: string }) {
  await ctx.engine.readable();
  const row =
    input.triggerId !== undefined
      ? await ctx.db.trigger.findFirst({ where: { publicId: input.triggerId, accountId }, include: { parentOrder: { select: { publicId: true } } } })
      : await ctx.db.trigger.findUnique({ where: { accountId_clientTriggerId: { accountId, clientTriggerId: input.clientTriggerId as string } }, include: { parentOrder: { select: { publicId: true } } } });
  if (!row) throw notFound();
  return row;
}

/** Spec 4.6 Get Trigger. */
export async function getTrigger(ctx: TradingContext, caller: Caller, input: { triggerId: string; subaccountId?: string }) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  const trigger = await findOwnTrigger(ctx, account.id, input);
  return { trigger, account: account.publicId, market: ctx.markets.marketById(trigger.symbolId) as Market };
}
