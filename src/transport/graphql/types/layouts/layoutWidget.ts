import { WIDGET_TYPES, type WidgetView } from '../../../../services/layouts/index.ts';
import { builder } from '../../builder.ts';
import { encodeBytes } from '../../bytes.ts';

const WidgetType = builder.enumType('LayoutWidgetType', { values: WIDGET_TYPES });

export const Widget = builder.objectRef<WidgetView>('LayoutWidget').implement({
  fields: (t) => ({
    widgetId: t.exposeString('widgetId'),
    widgetType: t.field({ type: WidgetType, resolve: (w) => w.widgetType }),
    widgetConfig: t.string({ description: 'base64, decoded according to widgetType', resolve: (w) => encodeBytes(w.widgetConfig) }),
  }),
});

export const WidgetInput = builder.inputType('LayoutWidgetInput', {
  fields: (t) => ({
    widgetId: t.string({ required: true }),
    widgetType: t.field({ type: WidgetType, required: true }),
    widgetConfig: t.string({ required: true, description: 'base64' }),
  }),
});
