import { z } from 'zod';
import { nonNegativeInt64 } from '../inputCodec.ts';

export { layerParams as deleteLayerParams } from './getLayer.schema.ts';
export const deleteLayerQuery = z.strictObject({ expectedRevision: nonNegativeInt64().optional() });
export type DeleteLayerQuery = z.output<typeof deleteLayerQuery>;
