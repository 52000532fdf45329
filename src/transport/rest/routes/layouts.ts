import { z } from 'zod';
import type { Services } from '../../../services/index.ts';
import { deleteLayoutParams } from '../../../services/layouts/deleteLayout.schema.ts';
import { getLayoutParams } from '../../../services/layouts/getLayout.schema.ts';
import { getLayoutTemplateParams } from '../../../services/layouts/getLayoutTemplate.schema.ts';
import { getLayoutTemplateVersionParams } from '../../../services/layouts/getLayoutTemplateVersion.schema.ts';
import { listLayoutsQuery } from '../../../services/layouts/listLayouts.schema.ts';
import { listLayoutTemplatesQuery } from '../../../services/layouts/listLayoutTemplates.schema.ts';
import { publishLayoutBody } from '../../../services/layouts/publishLayout.schema.ts';
import { upsertLayoutBody } from '../../../services/layouts/upsertLayout.schema.ts';
import { useLayoutTemplateBody, useLayoutTemplateParams } from '../../../services/layouts/useLayoutTemplate.schema.ts';
import {
  WIDGET_TYPES,
  type LayoutTemplateVersionView,
  type LayoutTemplateView,
  type LayoutView,
  type WidgetView,
} from '../../../services/layouts/index.ts';
import { toBase64, toInt64 } from '../codec.ts';
import { defineRoute } from '../route.ts';

/**
 * Layouts and templates (spec 2.5, 4.3). Upsert, Get and Publish are exactly 4.3; list,
 * delete, discovery, versions and "use" are ours (docs/api-decisions.md). Templates live
 * under /v1/layouts/published, the path Publish Layout already names.
 */

const widgetSchema = z.object({ widgetId: z.string(), widgetType: z.enum(WIDGET_TYPES), widgetConfig: z.string() });
const layoutSchema = z.object({
  viewerId: z.string(),
  layoutId: z.string(),
  name: z.string(),
  isDefault: z.boolean(),
  panelViewState: z.string(),
  widgets: z.array(widgetSchema),
  updatedAtMs: z.string(),
});
const templateRefSchema = z.object({ ownerId: z.string(), templateId: z.string() });
const templateSchema = z.object({
  template: templateRefSchema,
  title: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  isListed: z.boolean(),
  latestVersion: z.number().int(),
  publishedAtMs: z.string(),
  updatedAtMs: z.string(),
});
const versionSchema = z.object({
  template: templateRefSchema,
  version: z.number().int(),
  changelog: z.string(),
  title: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  layout: z.object({ name: z.string(), panelViewState: z.string(), widgets: z.array(widgetSchema) }),
  publishedAtMs: z.string(),
});

const renderWidget = (w: WidgetView) => ({ widgetId: w.widgetId, widgetType: w.widgetType, widgetConfig: toBase64(w.widgetConfig) });

export const renderLayout = (l: LayoutView) => ({
  viewerId: toInt64(l.viewerId),
  layoutId: toInt64(l.layoutId),
  name: l.name,
  isDefault: l.isDefault,
  panelViewState: toBase64(l.panelViewState),
  widgets: l.widgets.map(renderWidget),
  updatedAtMs: toInt64(l.updatedAtMs),
});

export const renderTemplate = (t: LayoutTemplateView) => ({
  template: { ownerId: t.template.ownerId, templateId: t.template.templateId },
  title: t.title,
  description: t.description,
  tags: [...t.tags],
  isListed: t.isListed,
  latestVersion: t.latestVersion,
  publishedAtMs: toInt64(t.publishedAtMs),
  updatedAtMs: toInt64(t.updatedAtMs),
});

export const renderTemplateVersion = (v: LayoutTemplateVersionView) => ({
  template: { ownerId: v.template.ownerId, templateId: v.template.templateId },
  version: v.version,
  changelog: v.changelog,
  title: v.title,
  description: v.description,
  tags: [...v.tags],
  layout: { name: v.layout.name, panelViewState: toBase64(v.layout.panelViewState), widgets: v.layout.widgets.map(renderWidget) },
  publishedAtMs: toInt64(v.publishedAtMs),
});

export function layoutRoutes(s: Services) {
  const layouts = s.layouts;
  return [
    defineRoute({
      operationId: 'upsertLayout',
      method: 'POST',
      url: '/v1/layouts',
      summary: 'Create a layout (layoutId "0" or empty) or replace one of the caller\'s',
      auth: 'caller',
      body: upsertLayoutBody,
      response: z.object({ layout: layoutSchema }),
      handler: async ({ body }, ctx) => {
        const { viewerId: _v, updatedAtMs: _u, ...layout } = body.layout;
        return { layout: renderLayout((await layouts.upsertLayout(ctx.caller, { layout })).layout) };
      },
    }),
    defineRoute({
      operationId: 'listLayouts',
      method: 'GET',
      url: '/v1/layouts',
      summary: "The caller's layouts, most recently updated first",
      auth: 'caller',
      query: listLayoutsQuery,
      response: z.object({ layouts: z.array(layoutSchema), nextPageToken: z.string() }),
      handler: async ({ query }, ctx) => {
        const r = await layouts.listLayouts(ctx.caller, query);
        return { layouts: r.layouts.map(renderLayout), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'getLayout',
      method: 'GET',
      url: '/v1/layouts/:layout_id',
      summary: 'One of the caller\'s layouts',
      auth: 'caller',
      params: getLayoutParams,
      response: z.object({ layout: layoutSchema }),
      handler: async ({ params }, ctx) => ({ layout: renderLayout((await layouts.getLayout(ctx.caller, { layoutId: params.layout_id })).layout) }),
    }),
    defineRoute({
      operationId: 'deleteLayout',
      method: 'DELETE',
      url: '/v1/layouts/:layout_id',
      summary: 'Delete one of the caller\'s layouts (templates published from it stay)',
      auth: 'caller',
      params: deleteLayoutParams,
      response: z.object({}),
      handler: async ({ params }, ctx) => layouts.deleteLayout(ctx.caller, { layoutId: params.layout_id }),
    }),
    defineRoute({
      operationId: 'publishLayout',
      method: 'POST',
      url: '/v1/layouts/published',
      summary: 'Publish a saved layout as the next immutable version of its template',
      auth: 'caller',
      body: publishLayoutBody,
      response: z.object({ template: templateSchema, version: z.number().int() }),
      handler: async ({ body }, ctx) => {
        const r = await layouts.publishLayout(ctx.caller, body);
        return { template: renderTemplate(r.template), version: r.version };
      },
    }),
    defineRoute({
      operationId: 'listLayoutTemplates',
      method: 'GET',
      url: '/v1/layouts/published',
      summary: 'Discover listed templates by tag or title, newest or most used first',
      auth: 'caller',
      query: listLayoutTemplatesQuery,
      response: z.object({ templates: z.array(templateSchema), nextPageToken: z.string() }),
      handler: async ({ query }, ctx) => {
        const r = await layouts.listLayoutTemplates(ctx.caller, query);
        return { templates: r.templates.map(renderTemplate), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'getLayoutTemplate',
      method: 'GET',
      url: '/v1/layouts/published/:ownerId/:templateId',
      summary: 'A template by its id, listed or not',
      auth: 'caller',
      params: getLayoutTemplateParams,
      response: z.object({ template: templateSchema }),
      handler: async ({ params }, ctx) => ({ template: renderTemplate((await layouts.getLayoutTemplate(ctx.caller, params)).template) }),
    }),
    defineRoute({
      operationId: 'getLayoutTemplateVersion',
      method: 'GET',
      url: '/v1/layouts/published/:ownerId/:templateId/versions/:version',
      summary: 'One immutable version of a template',
      auth: 'caller',
      params: getLayoutTemplateVersionParams,
      response: z.object({ templateVersion: versionSchema }),
      handler: async ({ params }, ctx) => ({
        templateVersion: renderTemplateVersion((await layouts.getLayoutTemplateVersion(ctx.caller, params)).version),
      }),
    }),
    defineRoute({
      operationId: 'useLayoutTemplate',
      method: 'POST',
      url: '/v1/layouts/published/:ownerId/:templateId/use',
      summary: "Copy a template version (latest by default) into the caller's layouts",
      auth: 'caller',
      params: useLayoutTemplateParams,
      body: useLayoutTemplateBody,
      response: z.object({ layout: layoutSchema }),
      handler: async ({ params, body }, ctx) => ({
        layout: renderLayout((await layouts.useLayoutTemplate(ctx.caller, { ...params, ...body })).layout),
      }),
    }),
  ];
}
