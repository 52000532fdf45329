import { z } from 'zod';
import { nonNegativeInt64, pageQuery } from '../inputCodec.ts';

export const DRAWINGS_LIST_DEFAULT = 500;
export const DRAWINGS_LIST_MAX = 1000;

export { layerParams as listDrawingsParams } from './getLayer.schema.ts';
export const listDrawingsQuery = z.strictObject({ updatedSinceMs: nonNegativeInt64().optional(), ...pageQuery(DRAWINGS_LIST_MAX) });
export type ListDrawingsQuery = z.output<typeof listDrawingsQuery>;
