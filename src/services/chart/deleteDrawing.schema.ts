import { z } from 'zod';
import { nonNegativeInt64 } from '../inputCodec.ts';

export { drawingParams as deleteDrawingParams } from './getDrawing.schema.ts';
export const deleteDrawingQuery = z.strictObject({ expectedLayerRevision: nonNegativeInt64().optional() });
export type DeleteDrawingQuery = z.output<typeof deleteDrawingQuery>;
