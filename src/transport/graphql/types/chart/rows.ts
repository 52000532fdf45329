import type { ChartDrawingView, ChartLayerView } from '../../../../services/chart/index.ts';
import type { Prisma } from '../../../../generated/prisma/client.ts';

/**
 * What the ChartLayer and ChartDrawing types read of their rows. Reads answer rows; a
 * write or a change event answers the service's view, which holds every one of these
 * columns, so it becomes the same shape here instead of being read again (a change event
 * must show the layer as that change left it, not as it is when the subscriber resolves).
 */

export const LAYER_COLUMNS = {
  ownerAccountId: true,
  layerId: true,
  engineSymbolId: true,
  name: true,
  sortHint: true,
  colorRgba: true,
  useLayerColor: true,
  isLocked: true,
  isVisible: true,
  revision: true,
  updatedAt: true,
} as const satisfies Prisma.ChartLayerSelect;

export const DRAWING_COLUMNS = {
  ownerAccountId: true,
  drawingId: true,
  layerId: true,
  engineSymbolId: true,
  type: true,
  version: true,
  payload: true,
  bboxTimeMinMs: true,
  bboxTimeMaxMs: true,
  bboxPriceMin: true,
  bboxPriceMax: true,
  updatedAt: true,
  deletedAt: true,
  clientUpdatedAtMs: true,
} as const satisfies Prisma.ChartDrawingSelect;

type LayerColumns = Prisma.ChartLayerGetPayload<{ select: typeof LAYER_COLUMNS }>;
type DrawingColumns = Prisma.ChartDrawingGetPayload<{ select: typeof DRAWING_COLUMNS }>;

/** A layer's view as its row's columns; `ownerAccountId` is the caller's root (layers are only ever the caller's own). */
export function layerColumns(v: ChartLayerView, ownerAccountId: bigint): LayerColumns {
  return {
    ownerAccountId,
    layerId: v.layerId,
    engineSymbolId: v.engineSymbolId,
    name: v.name,
    sortHint: v.sortHint,
    colorRgba: BigInt(v.colorRgba),
    useLayerColor: v.useLayerColor,
    isLocked: v.isLocked,
    isVisible: v.isVisible,
    revision: v.revision,
    updatedAt: new Date(Number(v.updatedAtMs)),
  };
}

/** A drawing's view as its row's columns, as layerColumns. */
export function drawingColumns(v: ChartDrawingView, ownerAccountId: bigint): DrawingColumns {
  return {
    ownerAccountId,
    drawingId: v.drawingId,
    layerId: v.layer.layerId,
    engineSymbolId: v.engineSymbolId,
    type: v.type,
    version: v.version,
    payload: new Uint8Array(v.payload),
    bboxTimeMinMs: v.bboxTimeMinMs,
    bboxTimeMaxMs: v.bboxTimeMaxMs,
    bboxPriceMin: v.bboxPriceMin,
    bboxPriceMax: v.bboxPriceMax,
    updatedAt: new Date(Number(v.updatedAtMs)),
    deletedAt: v.deletedAtMs === 0n ? null : new Date(Number(v.deletedAtMs)),
    clientUpdatedAtMs: v.clientUpdatedAtMs,
  };
}
