import type { DrawingState } from '../../domain/chartMerge.ts';
import { ApiError, errors } from '../../domain/errorCatalogue.ts';
import type { Prisma } from '../../generated/prisma/client.ts';

/** Layers, drawings and chart events as the transports render them, and the service's inputs. */

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

export type LayerRow = Prisma.ChartLayerGetPayload<true>;
export type DrawingRow = Prisma.ChartDrawingGetPayload<true>;

export const layerNotFound = () => errors.CHART_LAYER_NOT_FOUND('chart layer not found');
export const drawingNotFound = () => errors.CHART_DRAWING_NOT_FOUND('chart drawing not found');

export function staleRevision(current: bigint, expected: bigint, fieldPath: string): ApiError {
  return errors.CONFLICT_STALE_REVISION(`the layer is at revision ${current}, not ${expected}`, {
    violations: [{ fieldPath, message: 'is not the current revision', ruleId: 'stale-revision' }],
    extensions: { currentRevision: current.toString() },
  });
}

const ms = (d: Date): bigint => BigInt(d.getTime());

export function layerView(row: LayerRow, ownerId: string): ChartLayerView {
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

export function drawingView(row: DrawingRow, ownerId: string): ChartDrawingView {
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

export const eventDrawing = (d: ChartDrawingView) => ({ ...d, payload: Buffer.from(d.payload).toString('base64') });

export function stateOf(row: DrawingRow): DrawingState {
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

