import { queryFromInfo } from '@pothos/plugin-prisma';
import { TEMPLATES_LIST_DEFAULT } from '../../../../services/layouts/index.ts';
import { getLayoutTemplateParams } from '../../../../services/layouts/getLayoutTemplate.schema.ts';
import { listLayoutTemplatesQuery } from '../../../../services/layouts/listLayoutTemplates.schema.ts';
import { builder } from '../../builder.ts';
import { connectionFromPage } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { OWNER, TemplateRefType } from './layoutTemplateRef.ts';

const TemplateOrder = builder.enumType('LayoutTemplateOrder', { values: ['NEWEST', 'MOST_USED'] as const });

/** Versions a template lists at most per query: each carries a whole layout snapshot. */
const TEMPLATE_VERSIONS_MAX = 20;

/**
 * A template is its Prisma row: a page of templates reads its owner and the versions its
 * selection asks for with the page, one statement per relation, whatever the page size.
 */
export const Template = builder.prismaObject('LayoutTemplate', {
  description: 'A published layout (spec 2.5)',
  fields: (t) => ({
    template: t.field({ type: TemplateRefType, select: OWNER, resolve: (r) => ({ ownerId: r.ownerAccount.publicId, templateId: r.templateId }) }),
    title: t.exposeString('title'),
    description: t.exposeString('description'),
    tags: t.exposeStringList('tags'),
    isListed: t.exposeBoolean('isListed'),
    latestVersion: t.exposeInt('latestVersion'),
    publishedAtMs: t.field({ type: 'Int64', resolve: (r) => BigInt(r.publishedAt.getTime()) }),
    updatedAtMs: t.field({ type: 'Int64', resolve: (r) => BigInt(r.updatedAt.getTime()) }),
    versions: t.relation('versions', {
      description: `Its versions, newest first (at most ${TEMPLATE_VERSIONS_MAX}); each is GET /v1/layouts/published/{ownerId}/{templateId}/versions/{version}`,
      args: { first: t.arg.int({ description: `1 to ${TEMPLATE_VERSIONS_MAX}, default ${TEMPLATE_VERSIONS_MAX}` }) },
      query: (args) => ({ orderBy: { version: 'desc' }, take: Math.min(Math.max(args.first ?? TEMPLATE_VERSIONS_MAX, 1), TEMPLATE_VERSIONS_MAX) }),
    }),
  }),
});

builder.objectFields(ViewerRef, (t) => ({
  layoutTemplates: t.connection(
    {
      type: Template,
      description: 'Listed templates by tag and/or title fragment; with ownerId = your own id, your unlisted ones too',
      args: {
        tag: t.arg.string(),
        query: t.arg.string(),
        ownerId: t.arg.string(),
        orderBy: t.arg({ type: TemplateOrder }),
      },
      resolve: (caller, args, ctx, info) => {
        const filters = parseArgs(listLayoutTemplatesQuery, { tag: args.tag, query: args.query, ownerId: args.ownerId, orderBy: args.orderBy });
        return connectionFromPage(args, TEMPLATES_LIST_DEFAULT, async (page) => {
          const query = queryFromInfo({ context: ctx, info, typeName: 'LayoutTemplate', path: ['edges', 'node'] });
          const r = await ctx.services.layouts.listLayoutTemplates(caller, { ...page, ...filters }, 'include' in query ? query.include : {});
          return { items: r.rows, nextPageToken: r.nextPageToken };
        });
      },
    },
    { name: 'LayoutTemplateConnection' },
    { name: 'LayoutTemplateEdge' },
  ),
  layoutTemplate: t.prismaField({
    type: Template,
    description: 'Any template by its id, listed or not',
    args: { ownerId: t.arg.string({ required: true }), templateId: t.arg.string({ required: true }) },
    resolve: async (query, caller, args, ctx) =>
      (await ctx.services.layouts.getLayoutTemplate(caller, parseArgs(getLayoutTemplateParams, args), query.include ?? {})).row,
  }),
}));
