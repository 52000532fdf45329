import type { Caller } from '../../auth/caller.ts';
import type { ChartContext } from './context.ts';
import { write, findLayer, bumpLayer, publish } from './layerStore.ts';

/** Deletes the layer with all its drawings (no tombstone: the layer's id answers 404 from then on). */
export async function deleteLayer(ctx: ChartContext, caller: Caller, input: { layerId: string; expectedRevision?: bigint }) {
  const own = await write(ctx, caller, 'chart.mutate');
  const layer = await ctx.db.$transaction(async (tx) => {
    const current = await findLayer(tx, own.id, input.layerId);
    const { row } = await bumpLayer(ctx, tx, current, input.expectedRevision, 'expectedRevision');
    await tx.chartLayer.delete({ where: { id: current.id } });
    return row;
  });
  publish(ctx, { ownerId: own.publicId, change: 'LAYER_DELETED', layerId: layer.layerId, engineSymbolId: layer.engineSymbolId, revision: layer.revision, drawings: [] });
  return {};
}
