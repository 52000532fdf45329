import type { Caller } from '../../auth/caller.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../infra/database.ts';
import { requirePermission } from '../access.ts';
import type { CheckedDrawing } from './checks.ts';
import { CHART_ID } from './checks.ts';
import type { ChartContext } from './context.ts';
import { eventDrawing, layerNotFound, staleRevision, type ChartDrawingView, type ChartLayerEvent, type ChartLayerView, type LayerRow } from './views.ts';

/** What the chart operations share: the owner, the layer's lock and revision, publishing. */

/** Tombstones are kept this long, then purged; a delta sync older than this must start over. */
export const TOMBSTONE_RETENTION_MS = 30 * 24 * 3600 * 1000;

export type Tx = Prisma.TransactionClient;

/** Layers and drawings are the viewer's own UI data: READ is the least a key needs, for reads and writes alike. */
export function owner(caller: Caller) {
  requirePermission(caller, 'READ');
  return { id: caller.rootAccountId, publicId: caller.rootPublicId };
}

export async function write(ctx: ChartContext, caller: Caller, operation: 'chart.mutate' | 'chart.sync') {
  const own = owner(caller);
  await ctx.limiter.admit(operation, { caller, account: { id: own.id, publicId: own.publicId, kind: 'ROOT', rootAccountId: own.id } });
  return own;
}

export async function findLayer(tx: Tx | Db, ownerId: bigint, layerId: string, include: Prisma.ChartLayerInclude = {}): Promise<LayerRow> {
  if (!CHART_ID.test(layerId)) throw layerNotFound();
  const row = await tx.chartLayer.findUnique({ where: { ownerAccountId_layerId: { ownerAccountId: ownerId, layerId } }, include });
  if (!row) throw layerNotFound();
  return row;
}

/**
 * Takes the layer's row lock and moves it to the next revision, if it is still at
 * `expected` (any revision when undefined). Commit times never go backwards within a
 * layer, so a delta sync from the last `updatedAtMs` a device saw misses nothing.
 */
export async function bumpLayer(ctx: ChartContext, tx: Tx, layer: LayerRow, expected: bigint | undefined, fieldPath: string) {
  const locked = await tx.$queryRaw<{ revision: bigint; updatedAt: Date }[]>`
    SELECT "revision", "updatedAt" FROM "ChartLayer" WHERE "id" = ${layer.id} FOR UPDATE`;
  const current = locked[0];
  if (!current) throw layerNotFound();
  if (expected !== undefined && current.revision !== expected) throw staleRevision(current.revision, expected, fieldPath);
  const nowMs = Math.max(ctx.clock.now().getTime(), current.updatedAt.getTime());
  const now = new Date(nowMs);
  const row = await tx.chartLayer.update({ where: { id: layer.id }, data: { revision: current.revision + 1n, updatedAt: now } });
  // Tombstones past retention go while the layer is locked anyway.
  await tx.chartDrawing.deleteMany({
    where: { layerOwnerAccountId: layer.ownerAccountId, layerId: layer.layerId, deletedAt: { lt: new Date(nowMs - TOMBSTONE_RETENTION_MS) } },
  });
  return { row, now };
}

export async function liveCount(tx: Tx, layer: LayerRow): Promise<number> {
  return tx.chartDrawing.count({ where: { layerOwnerAccountId: layer.ownerAccountId, layerId: layer.layerId, deletedAt: null } });
}

export function publish(ctx: ChartContext, event: ChartLayerEvent): void {
  ctx.topics.publish('chart', event.ownerId, event);
}

export function drawingsChanged(ctx: ChartContext, ownerId: string, layer: ChartLayerView, drawings: ChartDrawingView[]): void {
  if (drawings.length === 0) return;
  publish(ctx, {
    ownerId,
    change: 'DRAWINGS_CHANGED',
    layerId: layer.layerId,
    engineSymbolId: layer.engineSymbolId,
    revision: layer.revision,
    layer,
    drawings: drawings.map(eventDrawing),
  });
}

export function drawingData(d: CheckedDrawing, now: Date, revision: bigint) {
  return {
    engineSymbolId: d.engineSymbolId,
    type: d.state.type,
    version: d.state.version,
    payload: new Uint8Array(d.state.payload),
    bboxTimeMinMs: d.state.bboxTimeMinMs,
    bboxTimeMaxMs: d.state.bboxTimeMaxMs,
    bboxPriceMin: d.state.bboxPriceMin,
    bboxPriceMax: d.state.bboxPriceMax,
    clientUpdatedAtMs: d.state.clientUpdatedAtMs === 0n ? BigInt(now.getTime()) : d.state.clientUpdatedAtMs,
    deletedAt: d.state.deleted ? now : null,
    updatedAt: now,
    layerRevision: revision,
  };
}

export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}
