import type { Caller } from '../../auth/caller.ts';
import type { ChartContext } from './context.ts';
import { resolveDrawingSync, type DrawingState, type SyncWinner } from '../../domain/chartMerge.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { checkDrawing } from './checks.ts';
import { write, findLayer, bumpLayer, liveCount, drawingsChanged, drawingData } from './layerStore.ts';
import { layerView, drawingView, stateOf, type DrawingInput, type DrawingRow } from './views.ts';
import { MAX_DRAWINGS_PER_LAYER } from './upsertDrawing.schema.ts';
import { MAX_SYNC_DRAWINGS } from './syncDrawings.schema.ts';

/**
 * Batch sync of drawings edited offline on one layer: per drawing, the state with the
 * later `clientUpdatedAtMs` is kept (ties broken by content, chartMerge.ts) and the
 * result says which side won. No expected revision: the merge is the conflict rule.
 * All winners commit in one transaction that raises the layer's revision by one (or
 * not at all when the server won everywhere).
 */
export async function syncDrawings(ctx: ChartContext, caller: Caller, input: { layerId: string; drawings: DrawingInput[] }) {
  const own = await write(ctx, caller, 'chart.sync');
  if (input.drawings.length < 1 || input.drawings.length > MAX_SYNC_DRAWINGS) {
    throw invalidArgument('drawings', `must hold 1 to ${MAX_SYNC_DRAWINGS} drawings`, 'range');
  }
  const checked = input.drawings.map((raw, i) => {
    const path = `drawings[${i}]`;
    if (!raw.drawingId) throw invalidArgument(`${path}.drawingId`, 'is required: offline drawings carry their own ids', 'required');
    if (!raw.clientUpdatedAtMs) throw invalidArgument(`${path}.clientUpdatedAtMs`, 'is required for a merge', 'required');
    const d = checkDrawing(raw, own.publicId, path);
    if (d.layerId !== input.layerId) throw invalidArgument(`${path}.layer.layerId`, 'must be the synced layer', 'layer-mismatch');
    return { ...d, drawingId: raw.drawingId, path };
  });
  const byId = new Map<string, typeof checked>();
  for (const d of checked) byId.set(d.drawingId, [...(byId.get(d.drawingId) ?? []), d]);

  const out = await ctx.db.$transaction(async (tx) => {
    const layer = await findLayer(tx, own.id, input.layerId);
    for (const d of checked) {
      if (d.engineSymbolId !== layer.engineSymbolId) throw invalidArgument(`${d.path}.engineSymbolId`, "must be the layer's market", 'layer-market');
    }
    // Locks the layer before reading its drawings, so the merge sees the latest state.
    await tx.$queryRaw`SELECT 1 FROM "ChartLayer" WHERE "id" = ${layer.id} FOR UPDATE`;
    const existing = await tx.chartDrawing.findMany({ where: { ownerAccountId: own.id, drawingId: { in: [...byId.keys()] } } });
    const rows = new Map(existing.map((r) => [r.drawingId, r]));
    const decisions = [...byId.entries()].map(([drawingId, edits]) => {
      const server = rows.get(drawingId);
      if (server && server.layerId !== layer.layerId) {
        throw invalidArgument(`${(edits[0] as (typeof checked)[number]).path}.layer.layerId`, 'a drawing stays on its layer', 'immutable');
      }
      const states: (DrawingState & { edit?: (typeof checked)[number] })[] = edits.map((e) => ({ ...e.state, edit: e }));
      const serverState: (typeof states)[number] | undefined = server ? stateOf(server) : undefined;
      const { winner, state } = resolveDrawingSync(serverState, states);
      return { drawingId, winner, server, edit: state.edit };
    });
    const writes = decisions.filter((x) => x.winner === 'CLIENT');
    let layerRow = layer;
    const written = new Map<string, DrawingRow>();
    if (writes.length > 0) {
      const { row, now } = await bumpLayer(ctx, tx, layer, undefined, 'layerId');
      layerRow = row;
      let live = await liveCount(tx, layer);
      for (const w of writes) {
        const edit = w.edit as (typeof checked)[number];
        const revived = !edit.state.deleted && (!w.server || w.server.deletedAt !== null);
        const buried = edit.state.deleted && w.server && w.server.deletedAt === null;
        if (revived && live >= MAX_DRAWINGS_PER_LAYER) {
          throw invalidArgument(`${edit.path}`, `a layer holds at most ${MAX_DRAWINGS_PER_LAYER} drawings`, 'max-drawings');
        }
        live += revived ? 1 : buried ? -1 : 0;
        const data = drawingData(edit, now, row.revision);
        written.set(
          w.drawingId,
          w.server
            ? await tx.chartDrawing.update({ where: { id: w.server.id }, data })
            : await tx.chartDrawing.create({
                data: { ownerAccountId: own.id, drawingId: w.drawingId, layerOwnerAccountId: own.id, layerId: layer.layerId, ...data, createdAt: now },
              }),
        );
      }
    }
    // Every decision has a row: the server's when it won, the one just written otherwise
    // (a drawing created and deleted offline is kept as a tombstone).
    const results = decisions.map((x) => ({
      drawingId: x.drawingId,
      winner: x.winner as SyncWinner,
      row: (written.get(x.drawingId) ?? x.server) as DrawingRow,
    }));
    return { layer: layerRow, results };
  });
  const layer = layerView(out.layer, own.publicId);
  const results = out.results.map((r) => ({ drawingId: r.drawingId, winner: r.winner, drawing: drawingView(r.row, own.publicId) }));
  drawingsChanged(ctx, own.publicId, layer, results.filter((r) => r.winner === 'CLIENT').map((r) => r.drawing));
  return { results, layerRevision: layer.revision };
}
