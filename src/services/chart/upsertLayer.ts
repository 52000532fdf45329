import type { Caller } from '../../auth/caller.ts';
import type { ChartContext } from './context.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { newPublicId } from '../../domain/ids.ts';
import { checkId, checkInt, checkName, INT32_MAX, INT32_MIN, UINT32_MAX } from './checks.ts';
import { write, findLayer, bumpLayer, publish, isUniqueViolation } from './layerStore.ts';
import { layerView, staleRevision, type LayerInput } from './views.ts';
import { MAX_LAYERS_PER_SYMBOL } from './upsertLayer.schema.ts';

/**
 * `expectedRevision` 0 creates (with the client's `layerId`, or a new one when empty);
 * otherwise the layer must be at that revision, else 409 `CONFLICT_STALE_REVISION`
 * carrying `currentRevision`. The market of a layer never changes.
 */
export async function upsertLayer(ctx: ChartContext, caller: Caller, input: { layer: LayerInput; expectedRevision: bigint }) {
  const own = await write(ctx, caller, 'chart.mutate');
  const l = input.layer;
  const layerId = l.layerId ?? '';
  if (layerId !== '') checkId(layerId, 'layer.layerId');
  const engineSymbolId = checkInt(l.engineSymbolId, 'layer.engineSymbolId', 1, INT32_MAX);
  const fields = {
    name: checkName(l.name, 'layer.name'),
    sortHint: checkInt(l.sortHint ?? 0, 'layer.sortHint', INT32_MIN, INT32_MAX),
    colorRgba: BigInt(checkInt(l.colorRgba ?? 0, 'layer.colorRgba', 0, UINT32_MAX)),
    useLayerColor: l.useLayerColor ?? false,
    isLocked: l.isLocked ?? false,
    isVisible: l.isVisible ?? true,
  };
  if (input.expectedRevision < 0n) throw invalidArgument('expectedRevision', 'must not be negative', 'range');

  if (input.expectedRevision === 0n) {
    if (!ctx.markets.marketById(engineSymbolId)) throw invalidArgument('layer.engineSymbolId', 'is not a market', 'unknown-market');
    const id = layerId === '' ? newPublicId() : layerId;
    try {
      const layer = await ctx.db.$transaction(async (tx) => {
        // Serialises creates of one owner so the per-market count holds.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`chart-layers:${own.id}`}, 0))`;
        const existing = await tx.chartLayer.findUnique({ where: { ownerAccountId_layerId: { ownerAccountId: own.id, layerId: id } } });
        if (existing) throw staleRevision(existing.revision, 0n, 'expectedRevision');
        const count = await tx.chartLayer.count({ where: { ownerAccountId: own.id, engineSymbolId } });
        if (count >= MAX_LAYERS_PER_SYMBOL) {
          throw invalidArgument('layer.engineSymbolId', `at most ${MAX_LAYERS_PER_SYMBOL} layers per market`, 'max-layers');
        }
        const now = ctx.clock.now();
        return tx.chartLayer.create({
          data: { ownerAccountId: own.id, layerId: id, engineSymbolId, ...fields, revision: 1n, createdAt: now, updatedAt: now },
        });
      });
      const view = layerView(layer, own.publicId);
      publish(ctx, { ownerId: own.publicId, change: 'LAYER_UPSERTED', layerId: view.layerId, engineSymbolId, revision: view.revision, layer: view, drawings: [] });
      return { layer: view };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const current = await findLayer(ctx.db, own.id, id);
      throw staleRevision(current.revision, 0n, 'expectedRevision');
    }
  }

  if (layerId === '') throw invalidArgument('layer.layerId', 'is required to update a layer', 'required');
  const layer = await ctx.db.$transaction(async (tx) => {
    const current = await findLayer(tx, own.id, layerId);
    if (current.engineSymbolId !== engineSymbolId) {
      throw invalidArgument('layer.engineSymbolId', 'a layer stays on its market', 'immutable');
    }
    const { row } = await bumpLayer(ctx, tx, current, input.expectedRevision, 'expectedRevision');
    return tx.chartLayer.update({ where: { id: row.id }, data: fields });
  });
  const view = layerView(layer, own.publicId);
  publish(ctx, { ownerId: own.publicId, change: 'LAYER_UPSERTED', layerId: view.layerId, engineSymbolId, revision: view.revision, layer: view, drawings: [] });
  return { layer: view };
}
