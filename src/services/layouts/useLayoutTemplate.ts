import type { Caller } from '../../auth/caller.ts';
import { checkLine, versionNotFound } from './checks.ts';
import { metered, type LayoutsContext } from './context.ts';
import { findTemplate, saveLayout } from './store.ts';
import { LAYOUT_NAME_MAX } from './upsertLayout.schema.ts';
import { layoutView, versionView, type TemplateRef } from './views.ts';

/**
 * Copies a template version (the latest by default) into the caller's layouts as a new
 * layout, and counts the use for discovery. Unlisted templates can be used by id.
 */
export async function useLayoutTemplate(ctx: LayoutsContext, caller: Caller, input: TemplateRef & { version?: number; name?: string; isDefault?: boolean }) {
  const v = await metered(ctx, caller, 'layout.mutate');
  const name = input.name === undefined || input.name === '' ? undefined : checkLine(input.name, 'name', LAYOUT_NAME_MAX);
  const row = await ctx.db.$transaction(async (tx) => {
    const template = await findTemplate(tx, input);
    const version = input.version === undefined || input.version === 0 ? template.latestVersion : input.version;
    const snapshot = await tx.layoutTemplateVersion.findUnique({
      where: { ownerAccountId_templateId_version: { ownerAccountId: template.ownerAccountId, templateId: template.templateId, version } },
    });
    if (!snapshot) throw versionNotFound();
    const copy = versionView(snapshot, template.ownerAccount.publicId).layout;
    const layout = await saveLayout(ctx, tx, v.id, undefined, {
      name: name ?? copy.name,
      isDefault: input.isDefault ?? false,
      panelViewState: copy.panelViewState,
      widgets: copy.widgets,
    });
    await tx.layoutTemplate.update({ where: { id: template.id }, data: { useCount: { increment: 1 } } });
    return layout;
  });
  return { layout: layoutView(row, v.viewerId) };
}
