import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { ChartContext } from './context.ts';
import { owner, findLayer } from './layerStore.ts';
import { layerView } from './views.ts';

/** `include` as for listLayers. */
export async function getLayer(ctx: ChartContext, caller: Caller, input: { layerId: string }, include: Prisma.ChartLayerInclude = {}) {
  const own = owner(caller);
  const row = await findLayer(ctx.db, own.id, input.layerId, include);
  return { layer: layerView(row, own.publicId), row };
}
