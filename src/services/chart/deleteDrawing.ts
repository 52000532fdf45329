import type { Caller } from '../../auth/caller.ts';
import type { ChartContext } from './context.ts';
import { CHART_ID } from './checks.ts';
import { write, findLayer, bumpLayer, drawingsChanged } from './layerStore.ts';
import { layerView, drawingView, staleRevision, drawingNotFound } from './views.ts';

/** Tombstones the drawing (idempotent: deleting a deleted drawing changes nothing). */
export async function deleteDrawing(ctx: ChartContext, caller: Caller, input: { drawingId: string; expectedLayerRevision?: bigint }) {
  const own = await write(ctx, caller, 'chart.mutate');
  if (!CHART_ID.test(input.drawingId)) throw drawingNotFound();
  const out = await ctx.db.$transaction(async (tx) => {
    const existing = await tx.chartDrawing.findUnique({ where: { ownerAccountId_drawingId: { ownerAccountId: own.id, drawingId: input.drawingId } } });
    if (!existing) throw drawingNotFound();
    const layer = await findLayer(tx, own.id, existing.layerId);
    if (existing.deletedAt) {
      if (input.expectedLayerRevision !== undefined && layer.revision !== input.expectedLayerRevision) {
        throw staleRevision(layer.revision, input.expectedLayerRevision, 'expectedLayerRevision');
      }
      return { layer, drawing: existing, changed: false };
    }
    const { row, now } = await bumpLayer(ctx, tx, layer, input.expectedLayerRevision, 'expectedLayerRevision');
    const drawing = await tx.chartDrawing.update({
      where: { id: existing.id },
      data: { deletedAt: now, updatedAt: now, layerRevision: row.revision, clientUpdatedAtMs: BigInt(now.getTime()) },
    });
    return { layer: row, drawing, changed: true };
  });
  const layer = layerView(out.layer, own.publicId);
  const drawing = drawingView(out.drawing, own.publicId);
  if (out.changed) drawingsChanged(ctx, own.publicId, layer, [drawing]);
  return { drawing, layerRevision: layer.revision };
}
