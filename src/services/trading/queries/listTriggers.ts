import type { Caller } from '../../../auth/caller.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import type { Prisma, TriggerStatus } from '../../../generated/prisma/client.ts';
import { TriggerType } from '../../../generated/prisma/enums.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import type { Market } from '../../markets.ts';
import { pageLimit, toPage } from '../../pageTokens.ts';
import { marketOf, type TradingContext } from '../context.ts';

/** What /v1 answers of a trigger's parent order. */
export const PARENT_ORDER = { parentOrder: { select: { publicId: true } } } as const satisfies Prisma.TriggerInclude;

const TRIGGER_TYPES = Object.values(TriggerType);
const STATUSES: TriggerStatus[] = ['CREATED', 'ARMED', 'TRIGGERED', 'RUNNING', 'PAUSED', 'COMPLETED', 'CANCELED', 'FAILED', 'EXPIRED'];

/** Spec 4.6 List Triggers: the account's triggers, newest first, with every filter of the spec. */
export async function listTriggers(
  ctx: TradingContext,
  caller: Caller,
  input: { subaccountId?: string; status?: string[]; symbol?: string; symbolId?: number; triggerType?: string; parentOrderId?: string; limit?: number; pageToken?: string },
  /** The relations to read with the page: GraphQL's selection (its events, its child orders), or the parent order's public id /v1 answers. */
  include: Prisma.TriggerInclude = PARENT_ORDER,
) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  const statuses = [...new Set((input.status ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean))].sort();
  for (const s of statuses) if (!STATUSES.includes(s as TriggerStatus)) throw invalidArgument('status', `must be one of ${STATUSES.join(', ')}`, 'enum');
  // Every transport passes what it was sent: an unknown type is the caller's mistake, not a query error.
  const triggerType = input.triggerType === undefined ? undefined : TRIGGER_TYPES.find((t) => t === input.triggerType);
  if (input.triggerType !== undefined && triggerType === undefined) throw invalidArgument('triggerType', `must be one of ${TRIGGER_TYPES.join(', ')}`, 'enum');
  const bySymbol = input.symbol !== undefined ? marketOf(ctx, input.symbol, 'symbol').symbolId : undefined;
  if (input.symbolId !== undefined && input.symbolId !== 0 && !ctx.markets.marketById(input.symbolId)) throw invalidArgument('symbolId', 'is not a listed pair', 'symbol');
  const symbolId = bySymbol ?? (input.symbolId ? input.symbolId : undefined);
  if (bySymbol !== undefined && input.symbolId && input.symbolId !== bySymbol) throw invalidArgument('symbolId', 'names another pair than symbol', 'consistent');
  const limit = pageLimit(input.limit, 500);
  const filters = { account: account.publicId, statuses, symbolId: symbolId ?? null, triggerType: triggerType ?? null, parentOrderId: input.parentOrderId ?? null };
  const binding = { operation: 'listTriggers', caller: caller.rootPublicId, filters };
  const cursor = ctx.pageTokens.decode<{ createdAt: string; id: string }>(input.pageToken, binding);
  await ctx.engine.readable(account.id);
  const where: Prisma.TriggerWhereInput = {
    accountId: account.id,
    ...(statuses.length > 0 ? { status: { in: statuses as TriggerStatus[] } } : {}),
    ...(symbolId !== undefined ? { symbolId } : {}),
    ...(triggerType ? { triggerType } : {}),
    // Standalone triggers have no parent; another account's order id matches nothing.
    ...(input.parentOrderId ? { parentOrder: { publicId: input.parentOrderId, accountId: account.id } } : {}),
    ...(cursor ? { OR: [{ createdAt: { lt: new Date(cursor.createdAt) } }, { createdAt: new Date(cursor.createdAt), id: { lt: BigInt(cursor.id) } }] } : {}),
  };
  const rows = await ctx.db.trigger.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit + 1, include });
  const page = toPage(rows, limit, ctx.pageTokens, binding, (r) => ({ createdAt: r.createdAt.toISOString(), id: r.id.toString() }));
  return { triggers: page.items.map((trigger) => ({ trigger, market: ctx.markets.marketById(trigger.symbolId) as Market })), account: account.publicId, nextPageToken: page.nextPageToken };
}
