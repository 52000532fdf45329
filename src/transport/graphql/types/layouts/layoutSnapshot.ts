import type { LayoutTemplateVersionView } from '../../../../services/layouts/index.ts';
import { builder } from '../../builder.ts';
import { encodeBytes } from '../../bytes.ts';
import { Widget } from './layoutWidget.ts';

export const Snapshot = builder.objectRef<LayoutTemplateVersionView['layout']>('LayoutSnapshot').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    panelViewState: t.string({ description: 'base64', resolve: (l) => encodeBytes(l.panelViewState) }),
    widgets: t.field({ type: [Widget], resolve: (l) => l.widgets }),
  }),
});
