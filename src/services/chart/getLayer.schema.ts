import { z } from 'zod';

export const layerParams = z.strictObject({ layerId: z.string().max(64) });
export type LayerParams = z.output<typeof layerParams>;
