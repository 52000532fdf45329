import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { ChartContext } from './context.ts';
import { checkInt, INT32_MAX } from './checks.ts';
import { owner } from './layerStore.ts';
import { layerView } from './views.ts';
import { MAX_LAYERS_PER_SYMBOL } from './upsertLayer.schema.ts';

/**
 * Layers of one market, by `sortHint` then `layerId` (at most MAX_LAYERS_PER_SYMBOL).
 * `include` adds the relations a GraphQL selection reads (Pothos' query for the ChartLayer
 * type, its drawings), read with the layers; the rows are answered too.
 */
export async function listLayers(ctx: ChartContext, caller: Caller, input: { engineSymbolId: number }, include: Prisma.ChartLayerInclude = {}) {
  const own = owner(caller);
  checkInt(input.engineSymbolId, 'engineSymbolId', 1, INT32_MAX);
  const rows = await ctx.db.chartLayer.findMany({
    where: { ownerAccountId: own.id, engineSymbolId: input.engineSymbolId },
    orderBy: [{ sortHint: 'asc' }, { layerId: 'asc' }],
    take: MAX_LAYERS_PER_SYMBOL,
    include,
  });
  return { layers: rows.map((r) => layerView(r, own.publicId)), rows };
}
