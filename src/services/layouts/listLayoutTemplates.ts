import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { pageLimit, toPage } from '../pageTokens.ts';
import { chars } from './checks.ts';
import { metered, type LayoutsContext } from './context.ts';
import { TEMPLATE_SEARCH_MAX, TEMPLATES_LIST_DEFAULT, TEMPLATES_LIST_MAX } from './listLayoutTemplates.schema.ts';
import { TEMPLATE_INCLUDE, templateView, type TemplateOrder } from './views.ts';

/**
 * Discovery: listed templates of everyone, filtered by tag and/or a title fragment,
 * newest publish first or most used first. With `ownerId` set to the caller's own id
 * the caller's unlisted templates are included; anyone else's unlisted ones never are.
 * `include` adds the relations a GraphQL selection reads (Pothos' query for the
 * LayoutTemplate type, its versions say), read with the page; the rows are answered too.
 */
export async function listLayoutTemplates(
  ctx: LayoutsContext,
  caller: Caller,
  input: { tag?: string; query?: string; ownerId?: string; orderBy?: TemplateOrder; limit?: number; pageToken?: string },
  include: Prisma.LayoutTemplateInclude = {},
) {
  const v = await metered(ctx, caller, 'layout.search');
  const limit = pageLimit(input.limit, TEMPLATES_LIST_MAX, TEMPLATES_LIST_DEFAULT);
  const orderBy = input.orderBy ?? 'NEWEST';
  if (orderBy !== 'NEWEST' && orderBy !== 'MOST_USED') throw invalidArgument('orderBy', 'must be NEWEST or MOST_USED', 'enum');
  const tag = input.tag === undefined || input.tag === '' ? undefined : input.tag.trim().toLowerCase();
  const query = input.query === undefined || input.query === '' ? undefined : input.query.trim();
  if (query !== undefined && chars(query) > TEMPLATE_SEARCH_MAX) throw invalidArgument('query', `must be at most ${TEMPLATE_SEARCH_MAX} characters`, 'length');
  const ownerId = input.ownerId === undefined || input.ownerId === '' ? undefined : input.ownerId;
  const binding = {
    operation: 'listLayoutTemplates',
    caller: v.publicId,
    filters: { tag: tag ?? null, query: query ?? null, ownerId: ownerId ?? null, orderBy },
  };
  const cursor = ctx.pageTokens.decode<{ key: string; id: string }>(input.pageToken, binding);
  const where: Prisma.LayoutTemplateWhereInput = {
    ...(ownerId === v.publicId ? { ownerAccountId: v.id } : { isListed: true, ...(ownerId ? { ownerAccount: { publicId: ownerId } } : {}) }),
    ...(tag ? { tags: { has: tag } } : {}),
    ...(query ? { title: { contains: query, mode: 'insensitive' } } : {}),
  };
  const after: Prisma.LayoutTemplateWhereInput = !cursor
    ? {}
    : orderBy === 'NEWEST'
      ? { OR: [{ updatedAt: { lt: new Date(cursor.key) } }, { updatedAt: new Date(cursor.key), id: { lt: BigInt(cursor.id) } }] }
      : { OR: [{ useCount: { lt: Number(cursor.key) } }, { useCount: Number(cursor.key), id: { lt: BigInt(cursor.id) } }] };
  const rows = await ctx.db.layoutTemplate.findMany({
    where: { AND: [where, after] },
    include: { ...include, ...TEMPLATE_INCLUDE },
    orderBy: orderBy === 'NEWEST' ? [{ updatedAt: 'desc' }, { id: 'desc' }] : [{ useCount: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, (r) => ({
    key: orderBy === 'NEWEST' ? r.updatedAt.toISOString() : String(r.useCount),
    id: r.id.toString(),
  }));
  return { templates: page.items.map((r) => templateView(r, r.ownerAccount.publicId)), rows: page.items, nextPageToken: page.nextPageToken };
}
