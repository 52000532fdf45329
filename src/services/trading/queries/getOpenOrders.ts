import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { marketOf, type TradingContext } from '../context.ts';
import type { Prisma } from '../../../generated/prisma/client.ts';
import type { Market } from '../../markets.ts';
import { pageLimit, toPage } from '../../pageTokens.ts';
import { attachedRiskView } from '../views.ts';

/** Spec 4.5 Get Open Orders: the account's non-terminal orders, newest first. */
export async function getOpenOrders(ctx: TradingContext, caller: Caller, input: { subaccountId?: string; symbols?: string[]; side?: 'BUY' | 'SELL'; triggerId?: string; limit?: number; pageToken?: string; includeAttachedRisk?: boolean; includeAttachedRiskState?: boolean }) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  const symbolIds = (input.symbols ?? []).map((s) => marketOf(ctx, s, 'symbol').symbolId).sort();
  const limit = pageLimit(input.limit, 1000);
  const binding = { operation: 'listOpenOrders', caller: caller.rootPublicId, filters: { account: account.publicId, symbolIds, side: input.side ?? null, triggerId: input.triggerId ?? null } };
  const cursor = ctx.pageTokens.decode<{ createdAt: string; id: string }>(input.pageToken, binding);
  const where: Prisma.OrderWhereInput = {
    accountId: account.id,
    isOpen: true,
    ...(symbolIds.length > 0 ? { symbolId: { in: symbolIds } } : {}),
    ...(input.side ? { side: input.side } : {}),
    // Child orders of one of the account's triggers; another account's trigger id matches nothing.
    ...(input.triggerId ? { originTrigger: { publicId: input.triggerId, accountId: account.id } } : {}),
    ...(cursor
      ? { OR: [{ createdAt: { lt: new Date(cursor.createdAt) } }, { createdAt: new Date(cursor.createdAt), id: { lt: BigInt(cursor.id) } }] }
      : {}),
  };
  const withRisk = input.includeAttachedRisk === true || input.includeAttachedRiskState === true;
  await ctx.engine.readable();
  const rows = await ctx.db.order.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    include: { attachedRiskLegs: withRisk },
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, (r) => ({ createdAt: r.createdAt.toISOString(), id: r.id.toString() }));
  return {
    orders: page.items.map((o) => {
      const legs = o.attachedRiskLegs ?? [];
      return {
        order: o,
        symbol: (ctx.markets.marketById(o.symbolId) as Market).symbol,
        ...(withRisk && legs.length > 0 ? { attachedRisk: attachedRiskView(o.oco, legs, { policy: input.includeAttachedRisk === true, state: input.includeAttachedRiskState === true }) } : {}),
      };
    }),
    nextPageToken: page.nextPageToken,
  };
}
