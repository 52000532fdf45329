import { versionSnapshot } from '../../../../services/layouts/index.ts';
import { getLayoutTemplateParams } from '../../../../services/layouts/getLayoutTemplate.schema.ts';
import { builder } from '../../builder.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { Snapshot } from './layoutSnapshot.ts';
import { OWNER, TemplateRefType } from './layoutTemplateRef.ts';

const Version = builder.prismaObject('LayoutTemplateVersion', {
  description: 'One immutable publish of a template',
  fields: (t) => ({
    template: t.field({
      type: TemplateRefType,
      select: { template: { select: { templateId: true, ...OWNER } } },
      resolve: (r) => ({ ownerId: r.template.ownerAccount.publicId, templateId: r.template.templateId }),
    }),
    version: t.exposeInt('version'),
    changelog: t.string({ resolve: (r) => r.changelog ?? '' }),
    title: t.exposeString('title'),
    description: t.exposeString('description'),
    tags: t.exposeStringList('tags'),
    layout: t.field({ type: Snapshot, resolve: (r) => versionSnapshot(r) }),
    publishedAtMs: t.field({ type: 'Int64', resolve: (r) => BigInt(r.publishedAt.getTime()) }),
  }),
});

builder.objectField(ViewerRef, 'layoutTemplateVersion', (t) =>
  t.prismaField({
    type: Version,
    args: {
      ownerId: t.arg.string({ required: true }),
      templateId: t.arg.string({ required: true }),
      version: t.arg.int({ description: 'Omit for the latest' }),
    },
    resolve: async (query, caller, args, ctx) =>
      (
        await ctx.services.layouts.getLayoutTemplateVersion(
          caller,
          { ...parseArgs(getLayoutTemplateParams, { ownerId: args.ownerId, templateId: args.templateId }), ...(args.version != null ? { version: args.version } : {}) },
          query.include ?? {},
        )
      ).row,
  }),
);
