import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { viewer, type LayoutsContext } from './context.ts';
import { findLayout } from './store.ts';
import { layoutView } from './views.ts';

/** `include` as for listLayouts. */
export async function getLayout(ctx: LayoutsContext, caller: Caller, input: { layoutId: bigint }, include: Prisma.LayoutInclude = {}) {
  const v = viewer(caller);
  const row = await findLayout(ctx.db, v.id, input.layoutId, include);
  return { layout: layoutView(row, v.viewerId), row };
}
