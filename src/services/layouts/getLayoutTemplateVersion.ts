import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { versionNotFound } from './checks.ts';
import { viewer, type LayoutsContext } from './context.ts';
import { findTemplate } from './store.ts';
import { versionView, type TemplateRef } from './views.ts';

/**
 * One immutable version; `version` 0 or absent means the latest. `include` adds the
 * relations a GraphQL selection reads; the row is answered too.
 */
export async function getLayoutTemplateVersion(
  ctx: LayoutsContext,
  caller: Caller,
  input: TemplateRef & { version?: number },
  include: Prisma.LayoutTemplateVersionInclude = {},
) {
  viewer(caller);
  const template = await findTemplate(ctx.db, input);
  const version = input.version === undefined || input.version === 0 ? template.latestVersion : input.version;
  const row = await ctx.db.layoutTemplateVersion.findUnique({
    where: { ownerAccountId_templateId_version: { ownerAccountId: template.ownerAccountId, templateId: template.templateId, version } },
    include,
  });
  if (!row) throw versionNotFound();
  return { version: versionView(row, template.ownerAccount.publicId), row };
}
