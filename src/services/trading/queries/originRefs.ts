import type { TradingContext } from '../context.ts';

/** The public ids an order's `origin` names: its trigger's and, for an attached-risk leg, the order the leg protects. */
export interface OriginRefs {
  originTriggerPublicId: string;
  originParentOrderPublicId: string;
}

/**
 * Orders keep their trigger by internal id only (the id the engine allocates in the
 * job), so the public ids are looked up at read time, one query for a whole page, and
 * only when some order on it is a trigger's child. The caller must be behind the
 * projection barrier: the trigger is projected with or before its child.
 */
export async function withOriginRefs<O extends { originTriggerId: bigint | null }>(ctx: TradingContext, orders: O[]): Promise<(O & Partial<OriginRefs>)[]> {
  const ids = [...new Set(orders.flatMap((o) => (o.originTriggerId !== null ? [o.originTriggerId] : [])))];
  if (ids.length === 0) return orders;
  const triggers = await ctx.db.trigger.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      publicId: true,
      parentOrder: { select: { publicId: true } },
    },
  });
  const refs = new Map(
    triggers.map((t) => [
      t.id,
      {
        originTriggerPublicId: t.publicId,
        originParentOrderPublicId: t.parentOrder?.publicId ?? '',
      },
    ]),
  );
  return orders.map((o) => (o.originTriggerId !== null && refs.has(o.originTriggerId) ? { ...o, ...refs.get(o.originTriggerId) } : o));
}
