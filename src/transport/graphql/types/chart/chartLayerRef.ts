import type { LayerRef } from '../../../../services/chart/index.ts';
import { builder } from '../../builder.ts';

export const ChartLayerRef = builder.objectRef<LayerRef>('ChartLayerRef').implement({
  fields: (t) => ({ ownerId: t.exposeString('ownerId'), layerId: t.exposeString('layerId') }),
});
