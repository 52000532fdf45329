import { builder } from '../../builder.ts';

export const ChartLayerRefInput = builder.inputType('ChartLayerRefInput', {
  fields: (t) => ({ ownerId: t.string(), layerId: t.string({ required: true }) }),
});
