import { builder } from '../../builder.ts';
import { ChartLayerRefInput } from './chartLayerRefInput.ts';

export const ChartDrawingInput = builder.inputType('ChartDrawingInput', {
  fields: (t) => ({
    drawingId: t.string({ description: 'Client-chosen id; empty or absent: the server assigns one' }),
    layer: t.field({ type: ChartLayerRefInput, required: true }),
    engineSymbolId: t.int({ required: true }),
    type: t.int({ required: true }),
    version: t.int({ required: true }),
    payload: t.string({ required: true, description: 'base64' }),
    bboxTimeMinMs: t.field({ type: 'Int64' }),
    bboxTimeMaxMs: t.field({ type: 'Int64' }),
    bboxPriceMin: t.float(),
    bboxPriceMax: t.float(),
    clientUpdatedAtMs: t.field({ type: 'Int64' }),
    deletedAtMs: t.field({ type: 'Int64', description: 'Sync only: non-zero marks a drawing deleted offline' }),
  }),
});
