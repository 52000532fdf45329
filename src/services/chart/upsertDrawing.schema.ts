import { z } from 'zod';
import { bytes, int32, nonNegativeInt64 } from '../inputCodec.ts';

export const MAX_DRAWING_PAYLOAD_BYTES = 64 * 1024;
export const MAX_DRAWINGS_PER_LAYER = 5000;

/**
 * A drawing as a client sends it. Clients may send back a drawing as they received it:
 * the server-assigned fields (`ownerId`, `updatedAtMs`) are accepted and ignored.
 */
export const drawingInput = z.strictObject({
  ownerId: z.string().max(64).optional(),
  drawingId: z.string().max(64).optional(),
  layer: z.strictObject({ ownerId: z.string().max(64).optional(), layerId: z.string().max(64) }),
  engineSymbolId: int32(),
  type: int32(),
  version: int32(),
  payload: bytes(),
  bboxTimeMinMs: nonNegativeInt64().optional(),
  bboxTimeMaxMs: nonNegativeInt64().optional(),
  bboxPriceMin: z.number().optional(),
  bboxPriceMax: z.number().optional(),
  updatedAtMs: z.string().max(32).optional(),
  deletedAtMs: nonNegativeInt64().optional(),
  clientUpdatedAtMs: nonNegativeInt64().optional(),
});
export type DrawingBody = z.output<typeof drawingInput>;

/** The service's input: the fields the server takes from a client. */
export const drawingOf = ({ ownerId: _o, updatedAtMs: _u, ...d }: DrawingBody) => d;

export const upsertDrawingBody = z.strictObject({ drawing: drawingInput, expectedLayerRevision: nonNegativeInt64() });
export type UpsertDrawingBody = z.output<typeof upsertDrawingBody>;
