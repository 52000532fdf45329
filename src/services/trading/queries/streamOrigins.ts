import type { TradingContext } from '../context.ts';
import type { OrderVersion } from '../writeSet.ts';
import { withOriginRefs, type OriginRefs } from './originRefs.ts';

/** Trigger ids whose public refs a process keeps for its streams; the oldest go first. */
const CACHED_ORIGINS = 10_000;

/**
 * An order event on a stream with its `origin`'s public ids, as REST shows them. A
 * trigger's ids never change, so they are read once per trigger (after the projection has
 * reached the event: the trigger is projected with or before its child) and kept, a
 * bounded number of them: a busy stream of triggers' children costs no query per event.
 */
export function streamOrigins(ctx: TradingContext) {
  const cache = new Map<bigint, OriginRefs>();
  return async function withOrigin(order: OrderVersion): Promise<OrderVersion & Partial<OriginRefs>> {
    const id = order.originTriggerId;
    if (id === null) return order;
    const known = cache.get(id);
    if (known) return { ...order, ...known };
    await ctx.engine.readable(order.accountId);
    const [found] = await withOriginRefs(ctx, [order]);
    if (found?.originTriggerPublicId !== undefined) {
      if (cache.size >= CACHED_ORIGINS) cache.delete(cache.keys().next().value as bigint);
      cache.set(id, { originTriggerPublicId: found.originTriggerPublicId, originParentOrderPublicId: found.originParentOrderPublicId ?? '' });
    }
    return found ?? order;
  };
}
