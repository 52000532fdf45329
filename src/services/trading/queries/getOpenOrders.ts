import type { Caller } from '../../../auth/caller.ts';
import type { AttachedRiskLegStatus, TriggerStatus } from '../../../generated/prisma/enums.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { marketOf, type TradingContext } from '../context.ts';
import type { Market } from '../../markets.ts';
import { pageLimit, toPage } from '../../pageTokens.ts';
import { withOriginRefs } from './originRefs.ts';

/** Spec 4.5 Get Open Orders: the account's non-terminal orders, newest first. */
export async function getOpenOrders(ctx: TradingContext, caller: Caller, input: { subaccountId?: string; symbols?: string[]; side?: 'BUY' | 'SELL'; triggerId?: string; limit?: number; pageToken?: string; includeAttachedRisk?: boolean; includeAttachedRiskState?: boolean }) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  const symbolIds = (input.symbols ?? []).map((s) => marketOf(ctx, s, 'symbol').symbolId).sort();
  const limit = pageLimit(input.limit, 1000);
  // The binding keeps the operation's former name: page tokens handed out before it was renamed stay valid.
  const binding = { operation: 'listOpenOrders', caller: caller.rootPublicId, filters: { account: account.publicId, symbolIds, side: input.side ?? null, triggerId: input.triggerId ?? null } };
  const cursor = ctx.pageTokens.decode<{ createdAt: string; id: string }>(input.pageToken, binding);
  const after = cursor ? { at: new Date(cursor.createdAt).getTime(), id: BigInt(cursor.id) } : undefined;
  // From the engine's memory: every acknowledged change is there, with no wait for the projection.
  let rows = (await ctx.engine.openOrdersOf(account.id)).filter(
    (o) =>
      (symbolIds.length === 0 || symbolIds.includes(o.symbolId)) &&
      (!input.side || o.side === input.side) &&
      (!after || o.createdAt.getTime() < after.at || (o.createdAt.getTime() === after.at && o.id < after.id)),
  );
  const withRisk = input.includeAttachedRisk === true || input.includeAttachedRiskState === true;
  // Trigger links, origins and attached-risk legs live in the projected tables: read them behind the barrier.
  if (input.triggerId !== undefined || withRisk || rows.some((o) => o.originTriggerId !== null)) await ctx.engine.readable(account.id);
  if (input.triggerId !== undefined) {
    // Child orders of one of the account's triggers; another account's trigger id matches nothing.
    const children = await ctx.db.order.findMany({ where: { accountId: account.id, isOpen: true, originTrigger: { publicId: input.triggerId, accountId: account.id } }, select: { id: true } });
    const ids = new Set(children.map((c) => c.id));
    rows = rows.filter((o) => ids.has(o.id));
  }
  rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (b.id > a.id ? 1 : b.id < a.id ? -1 : 0));
  const page = toPage(rows.slice(0, limit + 1), limit, ctx.pageTokens, binding, (r) => ({ createdAt: r.createdAt.toISOString(), id: r.id.toString() }));
  const legs = withRisk ? await legsOf(ctx, page.items.map((o) => o.id)) : [];
  return {
    orders: (await withOriginRefs(ctx, page.items)).map((o) => {
      const mine = legs.filter((l) => l.parentOrderId === o.id);
      return {
        order: o,
        symbol: (ctx.markets.marketById(o.symbolId) as Market).symbol,
        ...(mine.length > 0 ? { attachedRisk: { oco: o.oco, legs: mine } } : {}),
      };
    }),
    nextPageToken: page.nextPageToken,
  };
}

/** Trigger status as the leg state of spec 2.7 names it. */
const LEG_STATUS: Record<TriggerStatus, AttachedRiskLegStatus> = { CREATED: 'PENDING', ARMED: 'ARMED', PAUSED: 'ARMED', TRIGGERED: 'TRIGGERED', RUNNING: 'TRIGGERED', COMPLETED: 'COMPLETED', CANCELED: 'CANCELED', EXPIRED: 'CANCELED', FAILED: 'FAILED' };

/**
 * The attached-risk legs of these orders with the state of the triggers executing them.
 * Found through the triggers' parent, so legs a replace carried to a new generation are
 * shown with it.
 */
export async function legsOf(ctx: TradingContext, orderIds: bigint[]) {
  const triggers = await ctx.db.trigger.findMany({
    where: { parentOrderId: { in: orderIds } },
    include: { attachedRiskLeg: true, events: { where: { eventType: 'FIRED' }, include: { childOrder: { select: { publicId: true } } } } },
    orderBy: { id: 'asc' },
  });
  return triggers.flatMap((t) =>
    t.attachedRiskLeg
      ? [{ ...t.attachedRiskLeg, ...amendedPolicy(t), parentOrderId: t.parentOrderId as bigint, status: LEG_STATUS[t.status], armedAt: t.armedAt, terminalAt: t.terminalAt, triggerPublicId: t.publicId, childOrderPublicId: t.events[0]?.childOrder?.publicId ?? '' }]
      : [],
  );
}

/** A leg's prices and distance as its trigger has them now: POST /v1/triggers/modify amends the trigger, not the policy row. */
function amendedPolicy(t: { triggerType: string; triggerPrice: bigint | null; childLimitPrice: bigint | null; params: unknown }) {
  if (t.triggerType !== 'TRAILING_STOP') return { triggerPrice: t.triggerPrice, childLimitPrice: t.childLimitPrice };
  const p = t.params as { trailingDistanceTicks?: string | null; trailingDistanceBps?: number | null };
  return { trailingDistanceTicks: p.trailingDistanceTicks ? BigInt(p.trailingDistanceTicks) : null, trailingDistanceBps: p.trailingDistanceBps ?? null };
}
