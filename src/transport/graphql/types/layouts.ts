import {
  LAYOUTS_LIST_DEFAULT,
  TEMPLATES_LIST_DEFAULT,
  WIDGET_TYPES,
  type LayoutTemplateVersionView,
  type LayoutTemplateView,
  type LayoutView,
  type TemplateRef,
  type WidgetView,
  versionSnapshot,
  viewerIdOf,
} from '../../../services/layouts/index.ts';
import { getLayoutTemplateParams } from '../../../services/layouts/getLayoutTemplate.schema.ts';
import { listLayoutTemplatesQuery } from '../../../services/layouts/listLayoutTemplates.schema.ts';
import { publishLayoutBody } from '../../../services/layouts/publishLayout.schema.ts';
import { useLayoutTemplateBody, useLayoutTemplateParams } from '../../../services/layouts/useLayoutTemplate.schema.ts';
import type { Prisma } from '../../../generated/prisma/client.ts';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';
import { decodeBytes, encodeBytes } from '../bytes.ts';
import { parseArgs } from '../validate.ts';
import { callerOf, connectionFromPage } from '../connections.ts';
import { ViewerRef } from './viewer.ts';

/**
 * Layouts and templates over GraphQL: the same service calls as /v1
 * (routes/layouts.ts) with the same field names; bytes are base64 text.
 */

const WidgetType = builder.enumType('LayoutWidgetType', { values: WIDGET_TYPES });
const TemplateOrder = builder.enumType('LayoutTemplateOrder', { values: ['NEWEST', 'MOST_USED'] as const });

const Widget = builder.objectRef<WidgetView>('LayoutWidget').implement({
  fields: (t) => ({
    widgetId: t.exposeString('widgetId'),
    widgetType: t.field({ type: WidgetType, resolve: (w) => w.widgetType }),
    widgetConfig: t.string({ description: 'base64, decoded according to widgetType', resolve: (w) => encodeBytes(w.widgetConfig) }),
  }),
});

/**
 * A layout is its Prisma row, read with the widgets its selection asks for: a page of
 * layouts reads them in one statement whatever its size. Rows are only ever the caller's
 * own (the service's `where`), so the viewer is the caller.
 */
const Layout = builder.prismaObject('Layout', {
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

const TemplateRefType = builder.objectRef<TemplateRef>('LayoutTemplateRef').implement({
  fields: (t) => ({ ownerId: t.exposeString('ownerId'), templateId: t.exposeString('templateId') }),
});

/** The owner's public id, read with the page (one statement for every template of it). */
const OWNER = { ownerAccount: { select: { publicId: true } } } as const;
/** Versions a template lists at most per query: each carries a whole layout snapshot. */
export const TEMPLATE_VERSIONS_MAX = 20;

/**
 * A template is its Prisma row: a page of templates reads its owner and the versions its
 * selection asks for with the page, one statement per relation, whatever the page size.
 */
const Template = builder.prismaObject('LayoutTemplate', {
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

const Snapshot = builder.objectRef<LayoutTemplateVersionView['layout']>('LayoutSnapshot').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    panelViewState: t.string({ description: 'base64', resolve: (l) => encodeBytes(l.panelViewState) }),
    widgets: t.field({ type: [Widget], resolve: (l) => l.widgets }),
  }),
});

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

const PublishResult = builder.objectRef<{ template: LayoutTemplateView; version: number }>('PublishLayoutResult').implement({
  fields: (t) => ({
    template: t.prismaField({
      type: Template,
      // Read back with the selection's relations; one deleted meanwhile is its 404.
      resolve: async (query, r, _args, ctx) => (await ctx.services.layouts.getLayoutTemplate(callerOf(ctx), r.template.template, query.include ?? {})).row,
    }),
    version: t.exposeInt('version', { description: 'The immutable version this publish created' }),
  }),
});

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
  layoutTemplateVersion: t.prismaField({
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
          { ownerId: args.ownerId, templateId: args.templateId, ...(args.version != null ? { version: args.version } : {}) },
          query.include ?? {},
        )
      ).row,
  }),
}));

const WidgetInput = builder.inputType('LayoutWidgetInput', {
  fields: (t) => ({
    widgetId: t.string({ required: true }),
    widgetType: t.field({ type: WidgetType, required: true }),
    widgetConfig: t.string({ required: true, description: 'base64' }),
  }),
});

const LayoutInput = builder.inputType('LayoutInput', {
  fields: (t) => ({
    layoutId: t.field({ type: 'Int64', description: '0 or absent creates; otherwise one of your layouts' }),
    name: t.string({ required: true }),
    isDefault: t.boolean(),
    panelViewState: t.string({ description: 'base64' }),
    widgets: t.field({ type: [WidgetInput] }),
  }),
});

const PublishInput = builder.inputType('PublishLayoutInput', {
  fields: (t) => ({
    layoutId: t.field({ type: 'Int64', required: true }),
    title: t.string({ required: true }),
    description: t.string(),
    tags: t.stringList(),
    isListed: t.boolean(),
    changelog: t.string(),
  }),
});

builder.mutationFields((t) => ({
  upsertLayout: t.prismaField({
    type: Layout,
    args: { layout: t.arg({ type: LayoutInput, required: true }) },
    resolve: async (query, _root, { layout }, ctx) =>
      writtenLayout(query, ctx, (
        await ctx.services.layouts.upsertLayout(callerOf(ctx), {
          layout: {
            name: layout.name,
            ...(layout.layoutId != null ? { layoutId: layout.layoutId } : {}),
            ...(layout.isDefault != null ? { isDefault: layout.isDefault } : {}),
            ...(layout.panelViewState != null ? { panelViewState: decodeBytes(layout.panelViewState, 'layout.panelViewState') } : {}),
            ...(layout.widgets != null
              ? {
                  widgets: layout.widgets.map((w, i) => ({
                    widgetId: w.widgetId,
                    widgetType: w.widgetType,
                    widgetConfig: decodeBytes(w.widgetConfig, `layout.widgets[${i}].widgetConfig`),
                  })),
                }
              : {}),
          },
        })
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
  publishLayout: t.field({
    type: PublishResult,
    description: 'Publishes a saved layout as the next immutable version of its template',
    args: { input: t.arg({ type: PublishInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      ctx.services.layouts.publishLayout(callerOf(ctx), parseArgs(publishLayoutBody, input)),
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
