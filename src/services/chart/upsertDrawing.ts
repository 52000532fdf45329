import type { Caller } from '../../auth/caller.ts';
import type { ChartContext } from './context.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { newPublicId } from '../../domain/ids.ts';
import { checkDrawing } from './checks.ts';
import { write, findLayer, bumpLayer, liveCount, drawingsChanged, drawingData } from './layerStore.ts';
import { layerView, drawingView, type DrawingInput } from './views.ts';
import { MAX_DRAWINGS_PER_LAYER } from './upsertDrawing.schema.ts';

/**
 * Creates or replaces one drawing if its layer is at `expectedLayerRevision`. The
 * client may choose `drawingId` (drawings made offline keep theirs). A drawing stays
 * on its layer; writing a deleted one brings it back (`deletedAtMs` is ignored here:
 * deleting is its own operation).
 */
export async function upsertDrawing(ctx: ChartContext, caller: Caller, input: { drawing: DrawingInput; expectedLayerRevision: bigint }) {
  const own = await write(ctx, caller, 'chart.mutate');
  const d = checkDrawing({ ...input.drawing, deletedAtMs: 0n }, own.publicId, 'drawing');
  const drawingId = d.drawingId ?? newPublicId();
  const out = await ctx.db.$transaction(async (tx) => {
    const layer = await findLayer(tx, own.id, d.layerId);
    if (layer.engineSymbolId !== d.engineSymbolId) {
      throw invalidArgument('drawing.engineSymbolId', "must be the layer's market", 'layer-market');
    }
    const { row, now } = await bumpLayer(ctx, tx, layer, input.expectedLayerRevision, 'expectedLayerRevision');
    const existing = await tx.chartDrawing.findUnique({ where: { ownerAccountId_drawingId: { ownerAccountId: own.id, drawingId } } });
    if (existing && existing.layerId !== layer.layerId) {
      throw invalidArgument('drawing.layer.layerId', 'a drawing stays on its layer', 'immutable');
    }
    if ((!existing || existing.deletedAt) && (await liveCount(tx, layer)) >= MAX_DRAWINGS_PER_LAYER) {
      throw invalidArgument('drawing.layer.layerId', `a layer holds at most ${MAX_DRAWINGS_PER_LAYER} drawings`, 'max-drawings');
    }
    const data = drawingData(d, now, row.revision);
    const drawing = existing
      ? await tx.chartDrawing.update({ where: { id: existing.id }, data })
      : await tx.chartDrawing.create({
          data: { ownerAccountId: own.id, drawingId, layerOwnerAccountId: own.id, layerId: layer.layerId, ...data, createdAt: now },
        });
    return { layer: row, drawing };
  });
  const layer = layerView(out.layer, own.publicId);
  const drawing = drawingView(out.drawing, own.publicId);
  drawingsChanged(ctx, own.publicId, layer, [drawing]);
  return { drawing, layerRevision: layer.revision };
}
