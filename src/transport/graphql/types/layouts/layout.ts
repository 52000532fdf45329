import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Prisma } from '../../../../generated/prisma/client.ts';
import { LAYOUTS_LIST_DEFAULT, type LayoutView, viewerIdOf } from '../../../../services/layouts/index.ts';
import { upsertLayoutBody } from '../../../../services/layouts/upsertLayout.schema.ts';
import { useLayoutTemplateBody, useLayoutTemplateParams } from '../../../../services/layouts/useLayoutTemplate.schema.ts';
import { builder } from '../../builder.ts';
import { encodeBytes } from '../../bytes.ts';
import { callerOf, connectionFromPage } from '../../connections.ts';
import type { GraphQLContext } from '../../context.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { Widget, WidgetInput } from './layoutWidget.ts';

/**
 * Layouts and templates over GraphQL: the same service calls as /v1
 * (routes/layouts.ts) with the same field names; bytes are base64 text.
 */

/**
 * A layout is its Prisma row, read with the widgets its selection asks for: a page of
 * layouts reads them in one statement whatever its size. Rows are only ever the caller's
 * own (the service's `where`), so the viewer is the caller.
 */
export const Layout = builder.prismaObject('Layout', {
  description: 'A saved UI layout (spec 2.5)',
  fields: (t) => ({
    viewerId: t.field({ type: 'Int64', resolve: (_l, _args, ctx) => viewerIdOf(callerOf(ctx).rootPublicId) }),
    layoutId: t.expose('layoutId', { type: 'Int64' }),
    name: t.exposeString('name'),
    isDefault: t.exposeBoolean('isDefault'),
    panelViewState: t.string({ description: 'base64', resolve: (l) => encodeBytes(l.panelViewState) }),
    widgets: t.field({ type: [Widget], select: { widgets: { orderBy: { position: 'asc' } } }, resolve: (l) => l.widgets }),
    updatedAtMs: t.field({ type: 'Int64', resolve: (l) => BigInt(l.updatedAt.getTime()) }),
  }),
});

/**
 * A layout a mutation wrote, read back (with the selection's relations) through the
 * service, so one deleted meanwhile is its 404, not an internal error.
 */
async function writtenLayout(query: { include?: Prisma.LayoutInclude }, ctx: GraphQLContext, layout: LayoutView) {
  return (await ctx.services.layouts.getLayout(callerOf(ctx), { layoutId: layout.layoutId }, query.include ?? {})).row;
}

builder.objectFields(ViewerRef, (t) => ({
  layouts: t.connection(
    {
      type: Layout,
      description: 'The caller’s layouts, most recently updated first',
      resolve: (caller, args, ctx, info) =>
        connectionFromPage(args, LAYOUTS_LIST_DEFAULT, async (page) => {
          const query = queryFromInfo({ context: ctx, info, typeName: 'Layout', path: ['edges', 'node'] });
          const r = await ctx.services.layouts.listLayouts(caller, page, 'include' in query ? query.include : {});
          return { items: r.rows, nextPageToken: r.nextPageToken };
        }),
    },
    { name: 'LayoutConnection' },
    { name: 'LayoutEdge' },
  ),
  layout: t.prismaField({
    type: Layout,
    args: { layoutId: t.arg({ type: 'Int64', required: true }) },
    resolve: async (query, caller, args, ctx) => (await ctx.services.layouts.getLayout(caller, args, query.include ?? {})).row,
  }),
}));

const LayoutInput = builder.inputType('LayoutInput', {
  fields: (t) => ({
    layoutId: t.field({ type: 'Int64', description: '0 or absent creates; otherwise one of your layouts' }),
    name: t.string({ required: true }),
    isDefault: t.boolean(),
    panelViewState: t.string({ description: 'base64' }),
    widgets: t.field({ type: [WidgetInput] }),
  }),
});

builder.mutationFields((t) => ({
  upsertLayout: t.prismaField({
    type: Layout,
    args: { layout: t.arg({ type: LayoutInput, required: true }) },
    resolve: async (query, _root, { layout }, ctx) =>
      writtenLayout(query, ctx, (
        await ctx.services.layouts.upsertLayout(callerOf(ctx), parseArgs(upsertLayoutBody, { layout }))
      ).layout),
  }),
  deleteLayout: t.field({
    type: 'Int64',
    description: 'The id of the deleted layout',
    args: { layoutId: t.arg({ type: 'Int64', required: true }) },
    resolve: async (_root, { layoutId }, ctx) => {
      await ctx.services.layouts.deleteLayout(callerOf(ctx), { layoutId });
      return layoutId;
    },
  }),
  useLayoutTemplate: t.prismaField({
    type: Layout,
    description: 'Copies a template version (the latest when omitted) into your layouts',
    args: {
      ownerId: t.arg.string({ required: true }),
      templateId: t.arg.string({ required: true }),
      version: t.arg.int(),
      name: t.arg.string(),
      isDefault: t.arg.boolean(),
    },
    resolve: async (query, _root, args, ctx) =>
      writtenLayout(query, ctx, (
        await ctx.services.layouts.useLayoutTemplate(callerOf(ctx), {
          ...parseArgs(useLayoutTemplateParams, { ownerId: args.ownerId, templateId: args.templateId }),
          ...parseArgs(useLayoutTemplateBody, { version: args.version, name: args.name, isDefault: args.isDefault }),
        })
      ).layout),
  }),
}));
