import { columnMisfit, modelSpecs, type ColumnSpec } from '../../infra/columnLimits.ts';
import type { DrawingState } from '../../domain/chartMerge.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { LAYER_NAME_MAX } from './upsertLayer.schema.ts';
import { MAX_DRAWING_PAYLOAD_BYTES } from './upsertDrawing.schema.ts';
import { layerNotFound, type DrawingInput } from './views.ts';

/** The service's own checks of chart input, whichever transport it came through. */

/** Client-chosen ids (offline drawings keep theirs): UUIDs, base58 and the like. */
export const CHART_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const UINT32_MAX = 2 ** 32 - 1;
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

const chars = (s: string) => [...s].length;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function checkId(id: string, fieldPath: string): void {
  if (!CHART_ID.test(id)) throw invalidArgument(fieldPath, 'must be 1 to 64 letters, digits, "_" or "-"', 'chart-id');
}

export function checkInt(v: number, fieldPath: string, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) throw invalidArgument(fieldPath, `must be an integer from ${min} to ${max}`, 'range');
  return v;
}

export function checkName(raw: string, fieldPath: string): string {
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

export interface CheckedDrawing {
  drawingId?: string;
  layerId: string;
  engineSymbolId: number;
  state: DrawingState;
}

export function checkDrawing(input: DrawingInput, ownerId: string, path: string): CheckedDrawing {
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
