import { builder } from '../../builder.ts';

export const ChartLayerInput = builder.inputType('ChartLayerInput', {
  fields: (t) => ({
    layerId: t.string({ description: 'Empty or absent on create: the server assigns one' }),
    engineSymbolId: t.int({ required: true }),
    name: t.string({ required: true }),
    sortHint: t.int(),
    colorRgba: t.field({ type: 'Int64', description: 'Packed 0xAARRGGBB' }),
    useLayerColor: t.boolean(),
    isLocked: t.boolean(),
    isVisible: t.boolean(),
  }),
});
