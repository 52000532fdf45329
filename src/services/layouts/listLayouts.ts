import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { pageLimit, toPage } from '../pageTokens.ts';
import { viewer, type LayoutsContext } from './context.ts';
import { LAYOUTS_LIST_DEFAULT, LAYOUTS_LIST_MAX } from './listLayouts.schema.ts';
import { LAYOUT_INCLUDE, layoutView, type LayoutRow } from './views.ts';

/**
 * Most recently updated first. `include` adds the relations a GraphQL selection reads
 * (Pothos' query for the Layout type), read with the page; the rows are answered too.
 */
export async function listLayouts(ctx: LayoutsContext, caller: Caller, input: { limit?: number; pageToken?: string }, include: Prisma.LayoutInclude = {}) {
  const v = viewer(caller);
  const limit = pageLimit(input.limit, LAYOUTS_LIST_MAX, LAYOUTS_LIST_DEFAULT);
  const binding = { operation: 'listLayouts', caller: v.publicId, filters: { order: 'updatedAt desc' } };
  const cursor = ctx.pageTokens.decode<{ updatedAt: string; id: string }>(input.pageToken, binding);
  const rows = await ctx.db.layout.findMany({
    where: {
      viewerAccountId: v.id,
      ...(cursor
        ? { OR: [{ updatedAt: { lt: new Date(cursor.updatedAt) } }, { updatedAt: new Date(cursor.updatedAt), id: { lt: BigInt(cursor.id) } }] }
        : {}),
    },
    include: { ...LAYOUT_INCLUDE, ...include },
    orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = toPage(rows as LayoutRow[], limit, ctx.pageTokens, binding, (r) => ({ updatedAt: r.updatedAt.toISOString(), id: r.id.toString() }));
  return { layouts: page.items.map((r) => layoutView(r, v.viewerId)), rows: page.items, nextPageToken: page.nextPageToken };
}
