import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { requirePermission } from '../access.ts';
import { pageLimit, toPage } from '../pageTokens.ts';
import { accessOf } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import { WHITEBOARD_LIST_DEFAULT, WHITEBOARD_LIST_MAX, type ListWhiteboardsQuery } from './listWhiteboards.schema.ts';
import { BOARD_INCLUDE, boardView, type BoardRow, type WhiteboardItem } from './views.ts';

interface UpdatedFirstCursor {
  updatedAt: string;
  id: string;
  [key: string]: string;
}

/**
 * Boards the caller owns, is a member of, or has opened by link, most recently updated
 * first. A board open to every signed-in account is listed to others only once they have
 * visited it (GET or its room), and only while the link still opens it.
 *
 * `include`: relations a GraphQL selection reads besides the ones access needs (Pothos'
 * query for the Whiteboard type): they are read with the page, one statement per relation
 * whatever its size. Its `aclEntries`, when given, lists every entry, each with its
 * `principalAccountId`, and stands in for the caller's own.
 */
export async function listWhiteboards(ctx: WhiteboardsContext, caller: Caller, input: ListWhiteboardsQuery, include: Prisma.WhiteboardInclude = {}) {
  requirePermission(caller, 'READ');
  const limit = pageLimit(input.limit, WHITEBOARD_LIST_MAX, WHITEBOARD_LIST_DEFAULT);
  const includeArchived = input.includeArchived ?? false;
  const binding = {
    operation: 'listWhiteboards',
    caller: caller.rootPublicId,
    filters: { includeArchived, order: 'updatedAt desc' },
  };
  const cursor = ctx.pageTokens.decode<UpdatedFirstCursor>(input.pageToken, binding);
  const rows = await ctx.db.whiteboard.findMany({
    where: {
      AND: [
        {
          OR: [
            { ownerAccountId: caller.rootAccountId },
            { aclEntries: { some: { principalAccountId: caller.rootAccountId } } },
            // Opened by link: listed while the link still opens it.
            { audience: 'AUTHENTICATED', visits: { some: { accountId: caller.rootAccountId } } },
          ],
        },
        includeArchived ? {} : { archivedAt: null },
        cursor
          ? {
              OR: [
                { updatedAt: { lt: new Date(cursor.updatedAt) } },
                { updatedAt: new Date(cursor.updatedAt), id: { lt: BigInt(cursor.id) } },
              ],
            }
          : {},
      ],
    },
    include: { ...BOARD_INCLUDE(caller.rootAccountId), ...include },
    orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = toPage(rows as BoardRow[], limit, ctx.pageTokens, binding, (r) => ({ updatedAt: r.updatedAt.toISOString(), id: r.id.toString() }));
  const boards: (WhiteboardItem & { row: BoardRow })[] = [];
  for (const row of page.items) {
    const access = accessOf(row, caller);
    if (access) boards.push({ board: boardView(row), access, row });
  }
  return { boards, nextPageToken: page.nextPageToken };
}
