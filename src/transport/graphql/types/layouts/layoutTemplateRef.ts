import type { TemplateRef } from '../../../../services/layouts/index.ts';
import { builder } from '../../builder.ts';

export const TemplateRefType = builder.objectRef<TemplateRef>('LayoutTemplateRef').implement({
  fields: (t) => ({ ownerId: t.exposeString('ownerId'), templateId: t.exposeString('templateId') }),
});

/** The owner's public id, read with the page (one statement for every template of it). */
export const OWNER = { ownerAccount: { select: { publicId: true } } } as const;
