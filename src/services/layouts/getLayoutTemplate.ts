import type { Caller } from '../../auth/caller.ts';
import { viewer, type LayoutsContext } from './context.ts';
import { findTemplate } from './store.ts';
import { templateView, type TemplateRef } from './views.ts';

/** Any template, listed or not, by its full id: knowing the id is what sharing an unlisted one means. */
export async function getLayoutTemplate(ctx: LayoutsContext, caller: Caller, input: TemplateRef) {
  viewer(caller);
  const row = await findTemplate(ctx.db, input);
  return { template: templateView(row, row.ownerAccount.publicId) };
}
