import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { PUBLIC_ID } from '../../domain/ids.ts';
import { isCanonicalBoardId, resolveAccess, type Audience, type DefaultRole, type MemberRole, type ResolvedAccess } from '../../domain/whiteboard.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../infra/database.ts';
import { requirePermission } from '../access.ts';
import type { WhiteboardsContext } from './context.ts';
import { BOARD_INCLUDE, boardView, type BoardRow, type WhiteboardItem } from './views.ts';

/**
 * Who reaches a board, and how. Access is resolved in the domain (owner, ACL entry,
 * audience; the highest role wins); a board the caller has no role on is 404. Reads need
 * READ; writes need WHITEBOARD_WRITE_PERMISSION and the board role they name.
 */

/** The permission writes need (docs/api-decisions.md, "Whiteboards"). */
export const WHITEBOARD_WRITE_PERMISSION = 'TRADE' as const;

type Tx = Prisma.TransactionClient;

export const boardNotFound = () => errors.WHITEBOARD_NOT_FOUND('whiteboard not found');
export const versionNotFound = () => errors.WHITEBOARD_VERSION_NOT_FOUND('whiteboard version not found');

/** The access answered to a caller that no longer sees the board it just changed (a manager that removed itself). */
const noAccess = (): ResolvedAccess => ({ role: 'VIEWER', permissions: { canView: false, canEdit: false, canManage: false } });

function mayWrite(caller: Caller): boolean {
  return caller.kind === 'session' || caller.permissions.has(WHITEBOARD_WRITE_PERMISSION);
}

/** The caller's ACL entry: the rows hold either only it or, for a GraphQL members selection, every entry. */
export function callerEntry(row: BoardRow, caller: Caller) {
  return row.aclEntries.find((e) => e.principalAccountId === caller.rootAccountId);
}

export function accessOf(row: BoardRow, caller: Caller): ResolvedAccess | undefined {
  return resolveAccess(
    {
      isOwner: row.ownerAccountId === caller.rootAccountId,
      memberRole: callerEntry(row, caller)?.role as MemberRole | undefined,
      audience: row.audience as Audience,
      defaultRole: row.defaultRole as DefaultRole,
      archived: row.archivedAt !== null,
    },
    mayWrite(caller),
  );
}

export async function findBoard(tx: Tx | Db, caller: Caller, boardId: string): Promise<{ row: BoardRow; access: ResolvedAccess }> {
  if (!isCanonicalBoardId(boardId)) throw boardNotFound();
  const row = await tx.whiteboard.findUnique({ where: { boardId: boardId }, include: BOARD_INCLUDE(caller.rootAccountId) });
  const access = row ? accessOf(row, caller) : undefined;
  if (!row || !access) throw boardNotFound();
  return { row, access };
}

/**
 * findBoard holding the board's row until the transaction ends, so changes of a board's
 * settings, members or existence go one at a time. The id is checked first: any other
 * text would fail the `::uuid` cast instead of being 404.
 */
export async function lockBoard(tx: Tx, caller: Caller, boardId: string): Promise<{ row: BoardRow; access: ResolvedAccess }> {
  if (!isCanonicalBoardId(boardId)) throw boardNotFound();
  await tx.$executeRaw`SELECT 1 FROM "Whiteboard" WHERE "boardId" = ${boardId}::uuid FOR UPDATE`;
  return findBoard(tx, caller, boardId);
}

/** The board of row `id` as the caller sees it now. */
export async function readItem(tx: Tx | Db, caller: Caller, id: bigint): Promise<WhiteboardItem> {
  const row = await tx.whiteboard.findUniqueOrThrow({ where: { id }, include: BOARD_INCLUDE(caller.rootAccountId) });
  return { board: boardView(row), access: accessOf(row, caller) ?? noAccess() };
}

/**
 * "Shared with me": a board the caller reaches only by its audience (a link), neither
 * owning it nor in its ACL, is remembered from the first visit on, so the list shows it.
 */
export async function recordVisit(ctx: Pick<WhiteboardsContext, 'db' | 'clock'>, caller: Caller, row: BoardRow): Promise<void> {
  if (row.ownerAccountId === caller.rootAccountId || callerEntry(row, caller)) return;
  await ctx.db.whiteboardVisit.createMany({
    data: [{ whiteboardId: row.id, accountId: caller.rootAccountId, firstVisitedAt: ctx.clock.now() }],
    skipDuplicates: true,
  });
}

/** Settings and members: the board's canManage, within a transaction holding the board's row. */
export async function manage<T>(
  ctx: WhiteboardsContext,
  caller: Caller,
  boardId: string,
  operation: 'whiteboard.update' | 'whiteboard.member',
  fn: (tx: Tx, row: BoardRow) => Promise<T>,
): Promise<T> {
  requirePermission(caller, WHITEBOARD_WRITE_PERMISSION);
  // Charged before the board is read: a 429, or a 503 while the authority is away, does nothing.
  await ctx.limiter.admit(operation, { caller });
  return ctx.db.$transaction(async (tx) => {
    const { row, access } = await lockBoard(tx, caller, boardId);
    if (!access.permissions.canManage) {
      throw errors.WHITEBOARD_MANAGE_DENIED('managing this board needs the MANAGER or OWNER role');
    }
    return fn(tx, row);
  });
}

/** The ACL target: any active root account other than the owner. */
export async function memberAccount(tx: Tx, accountId: string): Promise<bigint> {
  const notFound = () => errors.ACCOUNT_NOT_FOUND('account not found');
  if (!PUBLIC_ID.test(accountId)) throw notFound();
  const account = await tx.account.findFirst({ where: { publicId: accountId, kind: 'ROOT', status: 'ACTIVE' }, select: { id: true } });
  if (!account) throw notFound();
  return account.id;
}
