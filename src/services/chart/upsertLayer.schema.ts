import { z } from 'zod';
import { int32, nonNegativeInt64 } from '../inputCodec.ts';

export const LAYER_NAME_MAX = 100;
export const MAX_LAYERS_PER_SYMBOL = 100;

const uint32 = () => z.number({ error: 'must be a number' }).int({ error: 'must be an integer' }).min(0).max(2 ** 32 - 1);

/**
 * A layer as a client sends it. Clients may send back a layer as they received it: the
 * server-assigned fields (`ownerId`, `revision`, `updatedAtMs`) are accepted and ignored.
 */
export const layerInput = z.strictObject({
  ownerId: z.string().max(64).optional(),
  layerId: z.string().max(64).optional(),
  engineSymbolId: int32(),
  name: z.string().max(1024),
  sortHint: int32().optional(),
  colorRgba: uint32().optional(),
  useLayerColor: z.boolean().optional(),
  isLocked: z.boolean().optional(),
  isVisible: z.boolean().optional(),
  revision: z.string().max(32).optional(),
  updatedAtMs: z.string().max(32).optional(),
});

export const upsertLayerBody = z.strictObject({ layer: layerInput, expectedRevision: nonNegativeInt64() });
export type UpsertLayerBody = z.output<typeof upsertLayerBody>;
