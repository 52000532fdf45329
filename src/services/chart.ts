import type { Caller } from '../auth/caller.ts';
import { columnMisfit, modelSpecs, type ColumnSpec } from '../infra/columnLimits.ts';
import { resolveDrawingSync, type DrawingState, type SyncWinner } from '../domain/chartMerge.ts';
import { ApiError, invalidArgument } from '../domain/errors.ts';
import { newPublicId } from '../domain/ids.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { requirePermission } from './access.ts';
import type { MarketCatalog } from './markets.ts';
import { PageTokens, pageLimit, toPage } from './pageTokens.ts';
import type { RateLimiter } from './rateLimits.ts';
import { Publications, type SubscriberLimits } from './publications.ts';

/**
 * Chart layers and drawings (spec 2.6, 4.4, 3 "Chart layer revision"). A layer's
 * `revision` is its optimistic-concurrency token: every committed change to the layer or
 * to any of its drawings raises it by one, in the same transaction, under the layer's row
 * lock. Drawings are deleted as tombstones so syncing devices learn of deletions; offline
 * edits merge last-write-wins (src/domain/chartMerge.ts). Layers and drawings belong to
 * the caller's root account; ids of anyone else's are 404.
 */

export const MAX_LAYERS_PER_SYMBOL = 100;
export const MAX_DRAWINGS_PER_LAYER = 5000;
export const MAX_DRAWING_PAYLOAD_BYTES = 64 * 1024;
export const MAX_SYNC_DRAWINGS = 100;
export const LAYER_NAME_MAX = 100;
export const DRAWINGS_LIST_DEFAULT = 500;
export const DRAWINGS_LIST_MAX = 1000;
/** Tombstones are kept this long, then purged; a delta sync older than this must start over. */
export const TOMBSTONE_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** Client-chosen ids (offline drawings keep theirs): UUIDs, base58 and the like. */
export const CHART_ID = /^[A-Za-z0-9_-]{1,64}$/;
const UINT32_MAX = 2 ** 32 - 1;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export interface LayerRef {
  ownerId: string;
  layerId: string;
}

export interface ChartLayerView extends LayerRef {
  engineSymbolId: number;
  name: string;
  sortHint: number;
  colorRgba: number;
  useLayerColor: boolean;
  isLocked: boolean;
  isVisible: boolean;
  revision: bigint;
  updatedAtMs: bigint;
}

export interface ChartDrawingView {
  ownerId: string;
  drawingId: string;
  layer: LayerRef;
  engineSymbolId: number;
  type: number;
  version: number;
  payload: Uint8Array;
  bboxTimeMinMs: bigint;
  bboxTimeMaxMs: bigint;
  bboxPriceMin: number;
  bboxPriceMax: number;
  updatedAtMs: bigint;
  deletedAtMs: bigint;
  clientUpdatedAtMs: bigint;
}

export interface LayerInput {
  layerId?: string;
  engineSymbolId: number;
  name: string;
  sortHint?: number;
  colorRgba?: number;
  useLayerColor?: boolean;
  isLocked?: boolean;
  isVisible?: boolean;
}

export interface DrawingInput {
  drawingId?: string;
  layer: { ownerId?: string; layerId: string };
  engineSymbolId: number;
  type: number;
  version: number;
  payload: Uint8Array;
  bboxTimeMinMs?: bigint;
  bboxTimeMaxMs?: bigint;
  bboxPriceMin?: number;
  bboxPriceMax?: number;
  clientUpdatedAtMs?: bigint;
  /** Sync only: non-zero marks a drawing deleted offline (the server sets its own time). */
  deletedAtMs?: bigint;
}

/** What a subscriber of the owner's chart topic receives, after commit. */
export interface ChartLayerEvent {
  ownerId: string;
  change: 'LAYER_UPSERTED' | 'LAYER_DELETED' | 'DRAWINGS_CHANGED';
  layerId: string;
  engineSymbolId: number;
  revision: bigint;
  /** Absent for LAYER_DELETED. */
  layer?: ChartLayerView;
  /** The drawings this change wrote, tombstones included, payloads in base64. */
  drawings: (Omit<ChartDrawingView, 'payload'> & { payload: string })[];
}

type Tx = Prisma.TransactionClient;
type LayerRow = Prisma.ChartLayerGetPayload<true>;
type DrawingRow = Prisma.ChartDrawingGetPayload<true>;

const layerNotFound = () => new ApiError('not-found', 'chart layer not found', { code: 'CHART_LAYER_NOT_FOUND' });
const drawingNotFound = () => new ApiError('not-found', 'chart drawing not found', { code: 'CHART_DRAWING_NOT_FOUND' });

function staleRevision(current: bigint, expected: bigint, fieldPath: string): ApiError {
  return new ApiError('conflict', `the layer is at revision ${current}, not ${expected}`, {
    code: 'CONFLICT_STALE_REVISION',
    violations: [{ fieldPath, message: 'is not the current revision', ruleId: 'stale-revision' }],
    extensions: { currentRevision: current.toString() },
  });
}

const ms = (d: Date): bigint => BigInt(d.getTime());

function layerView(row: LayerRow, ownerId: string): ChartLayerView {
  return {
    ownerId,
    layerId: row.layerId,
    engineSymbolId: row.engineSymbolId,
    name: row.name,
    sortHint: row.sortHint,
    colorRgba: Number(row.colorRgba),
    useLayerColor: row.useLayerColor,
    isLocked: row.isLocked,
    isVisible: row.isVisible,
    revision: row.revision,
    updatedAtMs: ms(row.updatedAt),
  };
}

function drawingView(row: DrawingRow, ownerId: string): ChartDrawingView {
  // The drawing's content is what the merge compares; the view adds where it lives and when.
  const { deleted: _deleted, ...content } = stateOf(row);
  return {
    ownerId,
    drawingId: row.drawingId,
    layer: { ownerId, layerId: row.layerId },
    engineSymbolId: row.engineSymbolId,
    ...content,
    updatedAtMs: ms(row.updatedAt),
    deletedAtMs: row.deletedAt ? ms(row.deletedAt) : 0n,
  };
}

const eventDrawing = (d: ChartDrawingView) => ({ ...d, payload: Buffer.from(d.payload).toString('base64') });

function stateOf(row: DrawingRow): DrawingState {
  return {
    type: row.type,
    version: row.version,
    payload: new Uint8Array(row.payload),
    bboxTimeMinMs: row.bboxTimeMinMs,
    bboxTimeMaxMs: row.bboxTimeMaxMs,
    bboxPriceMin: row.bboxPriceMin,
    bboxPriceMax: row.bboxPriceMax,
    clientUpdatedAtMs: row.clientUpdatedAtMs,
    deleted: row.deletedAt !== null,
  };
}

// ---------------------------------------------------------------------------------------
// Validation.

const chars = (s: string) => [...s].length;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function checkId(id: string, fieldPath: string): void {
  if (!CHART_ID.test(id)) throw invalidArgument(fieldPath, 'must be 1 to 64 letters, digits, "_" or "-"', 'chart-id');
}

function checkInt(v: number, fieldPath: string, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) throw invalidArgument(fieldPath, `must be an integer from ${min} to ${max}`, 'range');
  return v;
}

function checkName(raw: string, fieldPath: string): string {
  const name = raw.trim();
  if (chars(name) < 1 || chars(name) > LAYER_NAME_MAX) throw invalidArgument(fieldPath, `must be 1 to ${LAYER_NAME_MAX} characters`, 'length');
  if (CONTROL.test(name)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return name;
}

const BBOX_PRICE = modelSpecs('ChartDrawing').bboxPriceMin as ColumnSpec;

function checkPrice(v: number | undefined, fieldPath: string): number {
  if (v === undefined) return 0;
  const misfit = columnMisfit(BBOX_PRICE, v);
  if (misfit) throw invalidArgument(fieldPath, misfit, 'finite');
  return v === 0 ? 0 : v; // -0 is stored as 0, so equal bounds compare equal in the merge
}

function checkMs(v: bigint | undefined, fieldPath: string): bigint {
  if (v === undefined) return 0n;
  if (v < 0n) throw invalidArgument(fieldPath, 'must not be negative', 'range');
  return v;
}

interface CheckedDrawing {
  drawingId?: string;
  layerId: string;
  engineSymbolId: number;
  state: DrawingState;
}

function checkDrawing(input: DrawingInput, ownerId: string, path: string): CheckedDrawing {
  if (input.drawingId !== undefined && input.drawingId !== '') checkId(input.drawingId, `${path}.drawingId`);
  checkId(input.layer.layerId, `${path}.layer.layerId`);
  // Another account's layer is answered like a missing one.
  if (input.layer.ownerId !== undefined && input.layer.ownerId !== '' && input.layer.ownerId !== ownerId) throw layerNotFound();
  const engineSymbolId = checkInt(input.engineSymbolId, `${path}.engineSymbolId`, 1, INT32_MAX);
  const type = checkInt(input.type, `${path}.type`, INT32_MIN, INT32_MAX);
  const version = checkInt(input.version, `${path}.version`, INT32_MIN, INT32_MAX);
  if (input.payload.length > MAX_DRAWING_PAYLOAD_BYTES) {
    throw invalidArgument(`${path}.payload`, `must be at most ${MAX_DRAWING_PAYLOAD_BYTES} bytes`, 'max-bytes');
  }
  const bboxTimeMinMs = checkMs(input.bboxTimeMinMs, `${path}.bboxTimeMinMs`);
  const bboxTimeMaxMs = checkMs(input.bboxTimeMaxMs, `${path}.bboxTimeMaxMs`);
  return {
    ...(input.drawingId ? { drawingId: input.drawingId } : {}),
    layerId: input.layer.layerId,
    engineSymbolId,
    state: {
      type,
      version,
      payload: input.payload,
      bboxTimeMinMs,
      bboxTimeMaxMs,
      bboxPriceMin: checkPrice(input.bboxPriceMin, `${path}.bboxPriceMin`),
      bboxPriceMax: checkPrice(input.bboxPriceMax, `${path}.bboxPriceMax`),
      clientUpdatedAtMs: checkMs(input.clientUpdatedAtMs, `${path}.clientUpdatedAtMs`),
      deleted: (input.deletedAtMs ?? 0n) !== 0n,
    },
  };
}

// ---------------------------------------------------------------------------------------

export function createChartService(deps: {
  db: Db;
  clock: Clock;
  markets: Pick<MarketCatalog, 'marketById'>;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
  events: TypedEventTarget<CustomEvent>;
  subscriberLimits?: SubscriberLimits;
  topicPrefix: string;
}) {
  const { db, clock, markets, pageTokens, limiter } = deps;
  const publications = new Publications<ChartLayerEvent>(deps.events, deps.subscriberLimits);
  const topic = (ownerId: string) => `${deps.topicPrefix}chart:${ownerId}`;

  /** Layers and drawings are the viewer's own UI data: READ is the least a key needs, for reads and writes alike. */
  function owner(caller: Caller) {
    requirePermission(caller, 'READ');
    return { id: caller.rootAccountId, publicId: caller.rootPublicId };
  }

  async function write(caller: Caller, operation: 'chart.mutate' | 'chart.sync') {
    const own = owner(caller);
    await limiter.admit(operation, { caller, account: { id: own.id, publicId: own.publicId, kind: 'ROOT', rootAccountId: own.id } });
    return own;
  }

  async function findLayer(tx: Tx | Db, ownerId: bigint, layerId: string): Promise<LayerRow> {
    if (!CHART_ID.test(layerId)) throw layerNotFound();
    const row = await tx.chartLayer.findUnique({ where: { ownerAccountId_layerId: { ownerAccountId: ownerId, layerId } } });
    if (!row) throw layerNotFound();
    return row;
  }

  /**
   * Takes the layer's row lock and moves it to the next revision, if it is still at
   * `expected` (any revision when undefined). Commit times never go backwards within a
   * layer, so a delta sync from the last `updatedAtMs` a device saw misses nothing.
   */
  async function bumpLayer(tx: Tx, layer: LayerRow, expected: bigint | undefined, fieldPath: string) {
    const locked = await tx.$queryRaw<{ revision: bigint; updatedAt: Date }[]>`
      SELECT "revision", "updatedAt" FROM "ChartLayer" WHERE "id" = ${layer.id} FOR UPDATE`;
    const current = locked[0];
    if (!current) throw layerNotFound();
    if (expected !== undefined && current.revision !== expected) throw staleRevision(current.revision, expected, fieldPath);
    const nowMs = Math.max(clock.now().getTime(), current.updatedAt.getTime());
    const now = new Date(nowMs);
    const row = await tx.chartLayer.update({ where: { id: layer.id }, data: { revision: current.revision + 1n, updatedAt: now } });
    // Tombstones past retention go while the layer is locked anyway.
    await tx.chartDrawing.deleteMany({
      where: { layerOwnerAccountId: layer.ownerAccountId, layerId: layer.layerId, deletedAt: { lt: new Date(nowMs - TOMBSTONE_RETENTION_MS) } },
    });
    return { row, now };
  }

  async function liveCount(tx: Tx, layer: LayerRow): Promise<number> {
    return tx.chartDrawing.count({ where: { layerOwnerAccountId: layer.ownerAccountId, layerId: layer.layerId, deletedAt: null } });
  }

  function publish(event: ChartLayerEvent): void {
    publications.publish(topic(event.ownerId), event);
  }

  function drawingsChanged(ownerId: string, layer: ChartLayerView, drawings: ChartDrawingView[]): void {
    if (drawings.length === 0) return;
    publish({
      ownerId,
      change: 'DRAWINGS_CHANGED',
      layerId: layer.layerId,
      engineSymbolId: layer.engineSymbolId,
      revision: layer.revision,
      layer,
      drawings: drawings.map(eventDrawing),
    });
  }

  function drawingData(d: CheckedDrawing, now: Date, revision: bigint) {
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

  function isUniqueViolation(err: unknown): boolean {
    return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
  }

  return {
    /** Layers of one market, by `sortHint` then `layerId` (at most MAX_LAYERS_PER_SYMBOL). */
    async listChartLayers(caller: Caller, input: { engineSymbolId: number }) {
      const own = owner(caller);
      checkInt(input.engineSymbolId, 'engineSymbolId', 1, INT32_MAX);
      const rows = await db.chartLayer.findMany({
        where: { ownerAccountId: own.id, engineSymbolId: input.engineSymbolId },
        orderBy: [{ sortHint: 'asc' }, { layerId: 'asc' }],
        take: MAX_LAYERS_PER_SYMBOL,
      });
      return { layers: rows.map((r) => layerView(r, own.publicId)) };
    },

    async getChartLayer(caller: Caller, input: { layerId: string }) {
      const own = owner(caller);
      return { layer: layerView(await findLayer(db, own.id, input.layerId), own.publicId) };
    },

    /**
     * `expectedRevision` 0 creates (with the client's `layerId`, or a new one when empty);
     * otherwise the layer must be at that revision, else 409 `CONFLICT_STALE_REVISION`
     * carrying `currentRevision`. The market of a layer never changes.
     */
    async upsertChartLayer(caller: Caller, input: { layer: LayerInput; expectedRevision: bigint }) {
      const own = await write(caller, 'chart.mutate');
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
        if (!markets.marketById(engineSymbolId)) throw invalidArgument('layer.engineSymbolId', 'is not a market', 'unknown-market');
        const id = layerId === '' ? newPublicId() : layerId;
        try {
          const layer = await db.$transaction(async (tx) => {
            // Serialises creates of one owner so the per-market count holds.
            await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`chart-layers:${own.id}`}, 0))`;
            const existing = await tx.chartLayer.findUnique({ where: { ownerAccountId_layerId: { ownerAccountId: own.id, layerId: id } } });
            if (existing) throw staleRevision(existing.revision, 0n, 'expectedRevision');
            const count = await tx.chartLayer.count({ where: { ownerAccountId: own.id, engineSymbolId } });
            if (count >= MAX_LAYERS_PER_SYMBOL) {
              throw invalidArgument('layer.engineSymbolId', `at most ${MAX_LAYERS_PER_SYMBOL} layers per market`, 'max-layers');
            }
            const now = clock.now();
            return tx.chartLayer.create({
              data: { ownerAccountId: own.id, layerId: id, engineSymbolId, ...fields, revision: 1n, createdAt: now, updatedAt: now },
            });
          });
          const view = layerView(layer, own.publicId);
          publish({ ownerId: own.publicId, change: 'LAYER_UPSERTED', layerId: view.layerId, engineSymbolId, revision: view.revision, layer: view, drawings: [] });
          return { layer: view };
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
          const current = await findLayer(db, own.id, id);
          throw staleRevision(current.revision, 0n, 'expectedRevision');
        }
      }

      if (layerId === '') throw invalidArgument('layer.layerId', 'is required to update a layer', 'required');
      const layer = await db.$transaction(async (tx) => {
        const current = await findLayer(tx, own.id, layerId);
        if (current.engineSymbolId !== engineSymbolId) {
          throw invalidArgument('layer.engineSymbolId', 'a layer stays on its market', 'immutable');
        }
        const { row } = await bumpLayer(tx, current, input.expectedRevision, 'expectedRevision');
        return tx.chartLayer.update({ where: { id: row.id }, data: fields });
      });
      const view = layerView(layer, own.publicId);
      publish({ ownerId: own.publicId, change: 'LAYER_UPSERTED', layerId: view.layerId, engineSymbolId, revision: view.revision, layer: view, drawings: [] });
      return { layer: view };
    },

    /** Deletes the layer with all its drawings (no tombstone: the layer's id answers 404 from then on). */
    async deleteChartLayer(caller: Caller, input: { layerId: string; expectedRevision?: bigint }) {
      const own = await write(caller, 'chart.mutate');
      const layer = await db.$transaction(async (tx) => {
        const current = await findLayer(tx, own.id, input.layerId);
        const { row } = await bumpLayer(tx, current, input.expectedRevision, 'expectedRevision');
        await tx.chartLayer.delete({ where: { id: current.id } });
        return row;
      });
      publish({ ownerId: own.publicId, change: 'LAYER_DELETED', layerId: layer.layerId, engineSymbolId: layer.engineSymbolId, revision: layer.revision, drawings: [] });
      return {};
    },

    async getChartDrawing(caller: Caller, input: { drawingId: string }) {
      const own = owner(caller);
      if (!CHART_ID.test(input.drawingId)) throw drawingNotFound();
      const row = await db.chartDrawing.findUnique({ where: { ownerAccountId_drawingId: { ownerAccountId: own.id, drawingId: input.drawingId } } });
      if (!row) throw drawingNotFound();
      return { drawing: drawingView(row, own.publicId) };
    },

    /**
     * Drawings of a layer, oldest change first. Without `updatedSinceMs` (or 0): the live
     * drawings. With it: every drawing changed at or after it, tombstones included; a
     * time older than the tombstone retention is refused, as deletions from then may be
     * gone. `layerRevision` is read in the same snapshot as the drawings.
     */
    async listChartDrawings(caller: Caller, input: { layerId: string; updatedSinceMs?: bigint; limit?: number; pageToken?: string }) {
      const own = owner(caller);
      const limit = pageLimit(input.limit, DRAWINGS_LIST_MAX, DRAWINGS_LIST_DEFAULT);
      const since = input.updatedSinceMs ?? 0n;
      if (since < 0n) throw invalidArgument('updatedSinceMs', 'must not be negative', 'range');
      const horizon = BigInt(clock.now().getTime() - TOMBSTONE_RETENTION_MS);
      if (since !== 0n && since < horizon) {
        throw new ApiError('invalid-argument', 'updatedSinceMs is older than the tombstone retention: list from the start', {
          code: 'CHART_SYNC_WINDOW_EXPIRED',
          violations: [{ fieldPath: 'updatedSinceMs', message: `must be within the last ${TOMBSTONE_RETENTION_MS} ms, or 0`, ruleId: 'sync-window' }],
        });
      }
      const binding = { operation: 'listChartDrawings', caller: own.publicId, filters: { layerId: input.layerId, since: since.toString(), order: 'updatedAt asc' } };
      const cursor = pageTokens.decode<{ updatedAt: string; id: string }>(input.pageToken, binding);
      return db.$transaction(
        async (tx) => {
          const layer = await findLayer(tx, own.id, input.layerId);
          const where: Prisma.ChartDrawingWhereInput = {
            layerOwnerAccountId: own.id,
            layerId: layer.layerId,
            ...(since === 0n
              ? { deletedAt: null }
              : { updatedAt: { gte: new Date(Number(since)) }, OR: [{ deletedAt: null }, { deletedAt: { gte: new Date(Number(horizon)) } }] }),
          };
          const after: Prisma.ChartDrawingWhereInput = cursor
            ? {
                OR: [
                  { updatedAt: { gt: new Date(cursor.updatedAt) } },
                  { updatedAt: new Date(cursor.updatedAt), id: { gt: BigInt(cursor.id) } },
                ],
              }
            : {};
          const rows = await tx.chartDrawing.findMany({
            where: { AND: [where, after] },
            orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
            take: limit + 1,
          });
          const page = toPage(rows, limit, pageTokens, binding, (r) => ({ updatedAt: r.updatedAt.toISOString(), id: r.id.toString() }));
          return { drawings: page.items.map((r) => drawingView(r, own.publicId)), layerRevision: layer.revision, nextPageToken: page.nextPageToken };
        },
        { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
      );
    },

    /**
     * Creates or replaces one drawing if its layer is at `expectedLayerRevision`. The
     * client may choose `drawingId` (drawings made offline keep theirs). A drawing stays
     * on its layer; writing a deleted one brings it back (`deletedAtMs` is ignored here:
     * deleting is its own operation).
     */
    async upsertChartDrawing(caller: Caller, input: { drawing: DrawingInput; expectedLayerRevision: bigint }) {
      const own = await write(caller, 'chart.mutate');
      const d = checkDrawing({ ...input.drawing, deletedAtMs: 0n }, own.publicId, 'drawing');
      const drawingId = d.drawingId ?? newPublicId();
      const out = await db.$transaction(async (tx) => {
        const layer = await findLayer(tx, own.id, d.layerId);
        if (layer.engineSymbolId !== d.engineSymbolId) {
          throw invalidArgument('drawing.engineSymbolId', "must be the layer's market", 'layer-market');
        }
        const { row, now } = await bumpLayer(tx, layer, input.expectedLayerRevision, 'expectedLayerRevision');
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
      drawingsChanged(own.publicId, layer, [drawing]);
      return { drawing, layerRevision: layer.revision };
    },

    /** Tombstones the drawing (idempotent: deleting a deleted drawing changes nothing). */
    async deleteChartDrawing(caller: Caller, input: { drawingId: string; expectedLayerRevision?: bigint }) {
      const own = await write(caller, 'chart.mutate');
      if (!CHART_ID.test(input.drawingId)) throw drawingNotFound();
      const out = await db.$transaction(async (tx) => {
        const existing = await tx.chartDrawing.findUnique({ where: { ownerAccountId_drawingId: { ownerAccountId: own.id, drawingId: input.drawingId } } });
        if (!existing) throw drawingNotFound();
        const layer = await findLayer(tx, own.id, existing.layerId);
        if (existing.deletedAt) {
          if (input.expectedLayerRevision !== undefined && layer.revision !== input.expectedLayerRevision) {
            throw staleRevision(layer.revision, input.expectedLayerRevision, 'expectedLayerRevision');
          }
          return { layer, drawing: existing, changed: false };
        }
        const { row, now } = await bumpLayer(tx, layer, input.expectedLayerRevision, 'expectedLayerRevision');
        const drawing = await tx.chartDrawing.update({
          where: { id: existing.id },
          data: { deletedAt: now, updatedAt: now, layerRevision: row.revision, clientUpdatedAtMs: BigInt(now.getTime()) },
        });
        return { layer: row, drawing, changed: true };
      });
      const layer = layerView(out.layer, own.publicId);
      const drawing = drawingView(out.drawing, own.publicId);
      if (out.changed) drawingsChanged(own.publicId, layer, [drawing]);
      return { drawing, layerRevision: layer.revision };
    },

    /**
     * Batch sync of drawings edited offline on one layer: per drawing, the state with the
     * later `clientUpdatedAtMs` is kept (ties broken by content, chartMerge.ts) and the
     * result says which side won. No expected revision: the merge is the conflict rule.
     * All winners commit in one transaction that raises the layer's revision by one (or
     * not at all when the server won everywhere).
     */
    async syncChartDrawings(caller: Caller, input: { layerId: string; drawings: DrawingInput[] }) {
      const own = await write(caller, 'chart.sync');
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

      const out = await db.$transaction(async (tx) => {
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
          const { row, now } = await bumpLayer(tx, layer, undefined, 'layerId');
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
      drawingsChanged(own.publicId, layer, results.filter((r) => r.winner === 'CLIENT').map((r) => r.drawing));
      return { results, layerRevision: layer.revision };
    },

    /** Committed changes of the caller's layers and drawings (all markets, or one). */
    subscribeChartLayerChanges(caller: Caller, engineSymbolId?: number): AsyncIterableIterator<ChartLayerEvent> {
      const own = owner(caller);
      return publications.subscribe(topic(own.publicId), engineSymbolId === undefined ? undefined : (e) => e.engineSymbolId === engineSymbolId);
    },
  };
}

export type ChartService = ReturnType<typeof createChartService>;
