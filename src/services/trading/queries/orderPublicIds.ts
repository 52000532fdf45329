import type { TradingContext } from '../context.ts';

/**
 * The public ids of orders named by internal id in rows the caller was already given (a
 * trigger's parent order, the child an event of it names): one statement for them all.
 */
export async function orderPublicIds(ctx: TradingContext, ids: readonly bigint[]): Promise<Map<bigint, string>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.order.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, publicId: true } });
  return new Map(rows.map((o) => [o.id, o.publicId]));
}
