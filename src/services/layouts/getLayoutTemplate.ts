import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { viewer, type LayoutsContext } from './context.ts';
import { findTemplate } from './store.ts';
import { templateView, type TemplateRef } from './views.ts';

/**
 * Any template, listed or not, by its full id: knowing the id is what sharing an unlisted
 * one means. `include` adds the relations a GraphQL selection reads; the row is answered too.
 */
export async function getLayoutTemplate(ctx: LayoutsContext, caller: Caller, input: TemplateRef, include: Prisma.LayoutTemplateInclude = {}) {
  viewer(caller);
  const row = await findTemplate(ctx.db, input, include);
  return { template: templateView(row, row.ownerAccount.publicId), row };
}
