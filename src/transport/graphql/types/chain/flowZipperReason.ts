import { builder } from '../../builder.ts';
import type { FlowShape } from './rows.ts';

export const FlowZipperReason = builder.objectRef<NonNullable<FlowShape['zipperReason']>>('FlowZipperReason').implement({
  description: 'Spec 2.12 zipperReason: why validation held or refused a flow',
  fields: (t) => ({ code: t.exposeString('code'), reasonId: t.exposeString('reasonId'), message: t.exposeString('message') }),
});
