import { z } from 'zod';

export const drawingParams = z.strictObject({ drawingId: z.string().max(64) });
export type DrawingParams = z.output<typeof drawingParams>;
