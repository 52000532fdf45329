import { z } from 'zod';
import { queryInt } from '../inputCodec.ts';

export const listLayersQuery = z.strictObject({ engineSymbolId: queryInt(1, 2 ** 31 - 1) });
export type ListLayersQuery = z.output<typeof listLayersQuery>;
