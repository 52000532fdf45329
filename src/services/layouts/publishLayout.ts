import type { Caller } from '../../auth/caller.ts';
import { requirePermission } from '../access.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { newPublicId } from '../../domain/ids.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { checkLine, checkTags, checkText } from './checks.ts';
import { metered, type LayoutsContext } from './context.ts';
import { MAX_TEMPLATES_PER_ACCOUNT, MAX_VERSIONS_PER_TEMPLATE, TEMPLATE_CHANGELOG_MAX, TEMPLATE_DESCRIPTION_MAX, TEMPLATE_TITLE_MAX } from './publishLayout.schema.ts';
import { findLayout, lockViewer } from './store.ts';
import { templateView, type PublishInput, type StoredWidget } from './views.ts';

/**
 * Publishes the caller's layout: the first publish creates its template at version 1,
 * each later one appends the next immutable version and updates the template's
 * title, description, tags and listing.
 */
export async function publishLayout(ctx: LayoutsContext, caller: Caller, input: PublishInput) {
  // Publishing speaks to everyone: a read-only key may keep its own layouts, not publish them.
  requirePermission(caller, 'TRADE');
  const v = await metered(ctx, caller, 'layout.publish');
  const title = checkLine(input.title, 'title', TEMPLATE_TITLE_MAX);
  const description = checkText(input.description ?? '', 'description', TEMPLATE_DESCRIPTION_MAX);
  const changelog = checkText(input.changelog ?? '', 'changelog', TEMPLATE_CHANGELOG_MAX);
  const tags = checkTags(input.tags ?? []);
  const isListed = input.isListed ?? false;
  const out = await ctx.db.$transaction(async (tx) => {
    await lockViewer(tx, v.id);
    const layout = await findLayout(tx, v.id, input.layoutId);
    const now = ctx.clock.now();
    const existing = await tx.layoutTemplate.findUnique({
      where: { ownerAccountId_sourceLayoutId: { ownerAccountId: v.id, sourceLayoutId: layout.layoutId } },
    });
    if (existing && existing.latestVersion >= MAX_VERSIONS_PER_TEMPLATE) {
      throw invalidArgument('layoutId', `a template keeps at most ${MAX_VERSIONS_PER_TEMPLATE} versions`, 'max-versions');
    }
    if (!existing && (await tx.layoutTemplate.count({ where: { ownerAccountId: v.id } })) >= MAX_TEMPLATES_PER_ACCOUNT) {
      throw invalidArgument('layoutId', `an account publishes at most ${MAX_TEMPLATES_PER_ACCOUNT} templates`, 'max-templates');
    }
    const template = existing
      ? await tx.layoutTemplate.update({
          where: { id: existing.id },
          data: { title, description, tags, isListed, latestVersion: existing.latestVersion + 1, updatedAt: now },
        })
      : await tx.layoutTemplate.create({
          data: {
            ownerAccountId: v.id,
            templateId: newPublicId(),
            sourceLayoutId: layout.layoutId,
            title,
            description,
            tags,
            isListed,
            latestVersion: 1,
            publishedAt: now,
            updatedAt: now,
          },
        });
    const widgets: StoredWidget[] = layout.widgets.map((w) => ({
      widgetId: w.widgetId,
      widgetType: w.widgetType,
      widgetConfig: Buffer.from(w.widgetConfig).toString('base64'),
    }));
    await tx.layoutTemplateVersion.create({
      data: {
        ownerAccountId: v.id,
        templateId: template.templateId,
        version: template.latestVersion,
        changelog: changelog === '' ? null : changelog,
        title,
        description,
        tags,
        layoutName: layout.name,
        panelViewState: new Uint8Array(layout.panelViewState),
        widgets: widgets as unknown as Prisma.InputJsonValue,
        publishedAt: now,
      },
    });
    return template;
  });
  return { template: templateView(out, v.publicId), version: out.latestVersion };
}
