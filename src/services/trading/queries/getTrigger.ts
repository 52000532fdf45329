import type { Caller } from '../../../auth/caller.ts';
import { errors } from '../../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import type { Prisma } from '../../../generated/prisma/client.ts';
import type { OperationId } from '../../../domain/ratelimit/catalog.ts';
import type { Market } from '../../markets.ts';
import type { TradingContext } from '../context.ts';
import { PARENT_ORDER } from './listTriggers.ts';

const notFound = () => errors.TRIGGER_NOT_FOUND('trigger not found');

/**
 * The account's trigger named by its public id or clientTriggerId, as projected (another account's: 404), with
 * the relations asked for (by default its parent order's public id, as /v1 answers).
 */
export async function findOwnTrigger(ctx: TradingContext, accountId: bigint, input: { triggerId?: string; clientTriggerId?: string }, include: Prisma.TriggerInclude = PARENT_ORDER) {
  await ctx.engine.readable(accountId);
  const row =
    input.triggerId !== undefined
      ? await ctx.db.trigger.findFirst({ where: { publicId: input.triggerId, accountId }, include })
      : await ctx.db.trigger.findUnique({ where: { accountId_clientTriggerId: { accountId, clientTriggerId: input.clientTriggerId as string } }, include });
  if (!row) throw notFound();
  return row;
}

/** Spec 4.6 Get Trigger. */
export async function getTrigger(ctx: TradingContext, caller: Caller, input: { triggerId: string; subaccountId?: string }, include: Prisma.TriggerInclude = PARENT_ORDER) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  const trigger = await findOwnTrigger(ctx, account.id, input, include);
  return { trigger, account: account.publicId, market: ctx.markets.marketById(trigger.symbolId) as Market };
}

/**
 * What cancel, pause and resume share: a trading caller names one of its account's
 * triggers by exactly one of `triggerId` and `clientTriggerId`, charged to `operation`'s pool.
 */
export async function namedTrigger(ctx: TradingContext, caller: Caller, input: { triggerId?: string; clientTriggerId?: string; subaccountId?: string }, operation: OperationId) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  if ((input.triggerId === undefined) === (input.clientTriggerId === undefined)) {
    throw invalidArgument('triggerId', 'give exactly one of triggerId and clientTriggerId', 'one-of');
  }
  await ctx.limiter.admit(operation, { caller, account });
  return { account, trigger: await findOwnTrigger(ctx, account.id, input) };
}
