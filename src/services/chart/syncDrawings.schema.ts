import { z } from 'zod';
import { drawingInput } from './upsertDrawing.schema.ts';

export const MAX_SYNC_DRAWINGS = 100;

export const syncDrawingsBody = z.strictObject({ layerId: z.string().max(64), drawings: z.array(drawingInput).max(MAX_SYNC_DRAWINGS) });
export type SyncDrawingsBody = z.output<typeof syncDrawingsBody>;
