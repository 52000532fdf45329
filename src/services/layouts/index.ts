import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { LayoutsContext } from './context.ts';
import { deleteLayout } from './deleteLayout.ts';
import { getLayout } from './getLayout.ts';
import { getLayoutTemplate } from './getLayoutTemplate.ts';
import { getLayoutTemplateVersion } from './getLayoutTemplateVersion.ts';
import { listLayouts } from './listLayouts.ts';
import { listLayoutTemplates } from './listLayoutTemplates.ts';
import { publishLayout } from './publishLayout.ts';
import { upsertLayout } from './upsertLayout.ts';
import { useLayoutTemplate } from './useLayoutTemplate.ts';

/**
 * Saved UI layouts and the templates published from them (spec 2.5, 4.3). A layout
 * belongs to the caller's root account (the viewer). Publishing appends an immutable
 * version to the layout's template; versions are snapshots, never rewritten.
 */

export type { LayoutsContext } from './context.ts';
export type { LayoutInput, LayoutTemplateVersionView, LayoutTemplateView, LayoutView, PublishInput, TemplateOrder, TemplateRef, WidgetView } from './views.ts';
export { versionSnapshot, viewerIdOf } from './views.ts';
export { LAYOUT_NAME_MAX, MAX_LAYOUTS_PER_VIEWER, MAX_PANEL_VIEW_STATE_BYTES, MAX_WIDGET_CONFIG_BYTES, MAX_WIDGETS_PER_LAYOUT, WIDGET_TYPES } from './upsertLayout.schema.ts';
export { LAYOUTS_LIST_DEFAULT, LAYOUTS_LIST_MAX } from './listLayouts.schema.ts';
export {
  MAX_TEMPLATE_TAGS,
  MAX_TEMPLATES_PER_ACCOUNT,
  MAX_VERSIONS_PER_TEMPLATE,
  TEMPLATE_CHANGELOG_MAX,
  TEMPLATE_DESCRIPTION_MAX,
  TEMPLATE_TAG_MAX,
  TEMPLATE_TITLE_MAX,
} from './publishLayout.schema.ts';
export { TEMPLATE_SEARCH_MAX, TEMPLATES_LIST_DEFAULT, TEMPLATES_LIST_MAX } from './listLayoutTemplates.schema.ts';

/**
 * The layout operations, keyed by their operationId. The reads take the relations a GraphQL
 * selection reads (Pothos' query for the Layout or LayoutTemplate type) as `include`.
 */
export function createLayoutService(ctx: LayoutsContext) {
  return {
    listLayouts: (caller: Caller, input: Parameters<typeof listLayouts>[2], include: Prisma.LayoutInclude = {}) => listLayouts(ctx, caller, input, include),
    getLayout: (caller: Caller, input: Parameters<typeof getLayout>[2], include: Prisma.LayoutInclude = {}) => getLayout(ctx, caller, input, include),
    upsertLayout: (caller: Caller, input: Parameters<typeof upsertLayout>[2]) => upsertLayout(ctx, caller, input),
    deleteLayout: (caller: Caller, input: Parameters<typeof deleteLayout>[2]) => deleteLayout(ctx, caller, input),
    publishLayout: (caller: Caller, input: Parameters<typeof publishLayout>[2]) => publishLayout(ctx, caller, input),
    listLayoutTemplates: (caller: Caller, input: Parameters<typeof listLayoutTemplates>[2], include: Prisma.LayoutTemplateInclude = {}) =>
      listLayoutTemplates(ctx, caller, input, include),
    getLayoutTemplate: (caller: Caller, input: Parameters<typeof getLayoutTemplate>[2], include: Prisma.LayoutTemplateInclude = {}) =>
      getLayoutTemplate(ctx, caller, input, include),
    getLayoutTemplateVersion: (caller: Caller, input: Parameters<typeof getLayoutTemplateVersion>[2], include: Prisma.LayoutTemplateVersionInclude = {}) =>
      getLayoutTemplateVersion(ctx, caller, input, include),
    useLayoutTemplate: (caller: Caller, input: Parameters<typeof useLayoutTemplate>[2]) => useLayoutTemplate(ctx, caller, input),
  };
}

export type LayoutService = ReturnType<typeof createLayoutService>;
