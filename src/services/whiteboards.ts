import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import * as Y from 'yjs';
import type { Caller } from '../auth/caller.ts';
import { ApiError, invalidArgument } from '../domain/errors.ts';
import { PUBLIC_ID } from '../domain/ids.ts';
import {
  AUDIENCES,
  checkEnum,
  checkTitle,
  DEFAULT_ROLES,
  isCanonicalBoardId,
  MEMBER_ROLES,
  resolveAccess,
  type Audience,
  type DefaultRole,
  type MemberRole,
  type ResolvedAccess,
} from '../domain/whiteboard.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import { requirePermission } from './access.ts';
import type { RateLimiter } from './rateLimits.ts';
import { PageTokens, pageLimit, toPage } from './pageTokens.ts';
import { isResync, markCritical } from '../infra/eventBus.ts';
import { Publications } from './publications.ts';
import { checkScene, EMPTY_SCENE, sceneToYjsUpdate, yjsToScene, type Scene } from './whiteboardScene.ts';
import { compactState, MAX_DOCUMENT_BYTES, restoreWithin, VERSION_INTERVAL_MS, VERSIONS_KEPT } from './whiteboardVersions.ts';

/**
 * Whiteboards (spec 2.13, 4.8): metadata, sharing and the stored Y.Doc of each board.
 * A board belongs to the caller's root account. Access is resolved in the domain
 * (owner, ACL entry, audience; the highest role wins); a board the caller has no role on
 * is 404. Reads need READ; writes (create, settings, members) need TRADE, the weakest
 * permission that is not read-only, and the board role they name (canManage for settings
 * and members). Every change of audience, default role, members or archive state
 * increments `accessVersion` and is published after commit, so open rooms on every
 * process re-resolve their connections' roles.
 */

export const WHITEBOARD_LIST_DEFAULT = 100;
export const WHITEBOARD_LIST_MAX = 500;
export const MAX_MEMBERS_PER_BOARD = 200;
/** Boards one account owns, archived ones included: each may hold a 16 MiB document. */
export const MAX_BOARDS_PER_ACCOUNT = 1_000;
/** The permission writes need (docs/api-decisions.md, "Whiteboards"). */
export const WHITEBOARD_WRITE_PERMISSION = 'TRADE' as const;

export interface WhiteboardView {
  boardId: string;
  ownerAccountId: string;
  title: string;
  audience: Audience;
  defaultRole: DefaultRole;
  accessVersion: bigint;
  initialSnapshot: Scene;
  createdAt: Date;
  updatedAt: Date;
  archivedAt: Date | null;
}

export interface WhiteboardItem {
  board: WhiteboardView;
  access: ResolvedAccess;
}

export interface WhiteboardAccessChanged {
  boardId: string;
  accessVersion: bigint;
  /** The board is gone: its rooms close for everyone. */
  deleted?: boolean;
}

export interface WhiteboardMember {
  accountId: string;
  role: 'OWNER' | MemberRole;
  /** When the role was given (the board's creation for the owner). */
  addedAt: Date;
}

export interface WhiteboardVersion {
  versionId: string;
  createdAt: Date;
  /** The version's Y.Doc as one (garbage-collected) Yjs update. */
  sizeBytes: number;
}

export interface WhiteboardRestored {
  boardId: string;
  versionId: string;
  restoredAt: Date;
}

/**
 * Applies `edit` to a board's document as one transaction: the open room's document when
 * rooms run in this process (every connection receives the change, other processes through
 * the Redis fan-out), stored afterwards.
 */
export type LiveEditor = (boardId: string, edit: (doc: Y.Doc, maxDocumentBytes: number) => void) => Promise<void>;

export interface WhiteboardExport {
  boardId: string;
  scene: Scene;
}

const BOARD_INCLUDE = (rootAccountId: bigint) =>
  ({
    ownerAccount: { select: { publicId: true } },
    aclEntries: { where: { principalAccountId: rootAccountId }, select: { role: true, principalAccountId: true } },
  }) satisfies Prisma.WhiteboardInclude;

type BoardRow = Prisma.WhiteboardGetPayload<{ include: ReturnType<typeof BOARD_INCLUDE> }>;
type Tx = Prisma.TransactionClient;

export const boardNotFound = () => new ApiError('not-found', 'whiteboard not found', { code: 'WHITEBOARD_NOT_FOUND' });
const versionNotFound = () => new ApiError('not-found', 'whiteboard version not found', { code: 'WHITEBOARD_VERSION_NOT_FOUND' });

function mayWrite(caller: Caller): boolean {
  return caller.kind === 'session' || caller.permissions.has(WHITEBOARD_WRITE_PERMISSION);
}

/** The caller's ACL entry: the rows hold either only it or, for a GraphQL members selection, every entry. */
function callerEntry(row: BoardRow, caller: Caller) {
  return row.aclEntries.find((e) => e.principalAccountId === caller.rootAccountId);
}

function accessOf(row: BoardRow, caller: Caller): ResolvedAccess | undefined {
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

function boardView(row: BoardRow): WhiteboardView {
  const snapshot = row.initialSnapshot as unknown as Scene;
  return {
    boardId: row.boardId,
    ownerAccountId: row.ownerAccount.publicId,
    title: row.title,
    audience: row.audience as Audience,
    defaultRole: row.defaultRole as DefaultRole,
    accessVersion: row.accessVersion,
    initialSnapshot: snapshot ?? EMPTY_SCENE,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    archivedAt: row.archivedAt,
  };
}

interface UpdatedFirstCursor {
  updatedAt: string;
  id: string;
  [key: string]: string;
}

export function createWhiteboardService(deps: {
  db: Db;
  clock: Clock;
  pageTokens: PageTokens;
  limiter: RateLimiter;
  events: TypedEventTarget<CustomEvent>;
  topicPrefix: string;
}) {
  const { db, clock, pageTokens, limiter } = deps;
  const accessTopic = `${deps.topicPrefix}whiteboard-access`;
  const publications = new Publications<WhiteboardAccessChanged>(deps.events);
  // A lost access change would leave a removed member editing: never dropped for other traffic.
  markCritical(deps.events, accessTopic);
  /** The open room documents of this process (set by the rooms), read by export. */
  let liveDocument: (boardId: string) => Y.Doc | undefined = () => undefined;
  /** Without rooms in this process, an edit goes to the stored state (merged like a room's store). */
  let editLive: LiveEditor = async (boardId, edit) => {
    const stored = await loadContent(boardId);
    if (stored === undefined) throw boardNotFound();
    const doc = new Y.Doc();
    try {
      if (stored.length > 0) Y.applyUpdate(doc, stored);
      edit(doc, MAX_DOCUMENT_BYTES);
      await storeContent(boardId, Y.encodeStateAsUpdate(doc));
    } finally {
      doc.destroy();
    }
  };

  async function loadContent(boardId: string): Promise<Uint8Array | undefined> {
    if (!isCanonicalBoardId(boardId)) return undefined;
    const row = await db.whiteboard.findUnique({ where: { boardId: boardId }, select: { yjsState: true } });
    if (!row) return undefined;
    return row.yjsState ?? new Uint8Array(0);
  }

  /**
   * Merges `state` into the stored one under the board's row lock, re-encoded from a
   * garbage-collected document (compaction), and takes a version when the newest is
   * VERSION_INTERVAL_MS old or there is none, keeping the newest VERSIONS_KEPT.
   */
  async function storeContent(boardId: string, state: Uint8Array): Promise<void> {
    if (!isCanonicalBoardId(boardId)) return;
    await db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ id: bigint; yjsState: Uint8Array | null }[]>`
        SELECT id, "yjsState" FROM "Whiteboard" WHERE "boardId" = ${boardId}::uuid FOR UPDATE`;
      const row = rows[0];
      if (!row) return;
      const compacted = compactState(row.yjsState ? [row.yjsState, state] : [state]);
      const now = clock.now();
      await tx.whiteboard.update({ where: { id: row.id }, data: { yjsState: Buffer.from(compacted), updatedAt: now } });
      const newest = await tx.whiteboardVersion.findFirst({
        where: { whiteboardId: row.id },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        select: { createdAt: true },
      });
      if (newest && now.getTime() - newest.createdAt.getTime() < VERSION_INTERVAL_MS) return;
      await tx.whiteboardVersion.create({ data: { whiteboardId: row.id, yjsState: Buffer.from(compacted), createdAt: now } });
      const stale = await tx.whiteboardVersion.findMany({
        where: { whiteboardId: row.id },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: VERSIONS_KEPT,
        select: { id: true },
      });
      if (stale.length > 0) await tx.whiteboardVersion.deleteMany({ where: { id: { in: stale.map((v) => v.id) } } });
    });
  }

  async function findBoard(tx: Tx | Db, caller: Caller, boardId: string): Promise<{ row: BoardRow; access: ResolvedAccess }> {
    if (!isCanonicalBoardId(boardId)) throw boardNotFound();
    const row = await tx.whiteboard.findUnique({ where: { boardId: boardId }, include: BOARD_INCLUDE(caller.rootAccountId) });
    const access = row ? accessOf(row, caller) : undefined;
    if (!row || !access) throw boardNotFound();
    return { row, access };
  }

  /**
   * "Shared with me": a board the caller reaches only by its audience (a link), neither
   * owning it nor in its ACL, is remembered from the first visit on, so the list shows it.
   */
  async function recordVisit(caller: Caller, row: BoardRow): Promise<void> {
    if (row.ownerAccountId === caller.rootAccountId || callerEntry(row, caller)) return;
    await db.whiteboardVisit.createMany({
      data: [{ whiteboardId: row.id, accountId: caller.rootAccountId, firstVisitedAt: clock.now() }],
      skipDuplicates: true,
    });
  }

  /** Settings and members: the board's canManage, within a transaction holding the board's row. */
  async function manage<T>(
    caller: Caller,
    boardId: string,
    operation: 'whiteboard.update' | 'whiteboard.member',
    fn: (tx: Tx, row: BoardRow) => Promise<T>,
  ): Promise<T> {
    requirePermission(caller, WHITEBOARD_WRITE_PERMISSION);
    // Charged before the board is read: a 429, or a 503 while the authority is away, does nothing.
    await limiter.admit(operation, { caller });
    return db.$transaction(async (tx) => {
      if (!isCanonicalBoardId(boardId)) throw boardNotFound();
      await tx.$executeRaw`SELECT 1 FROM "Whiteboard" WHERE "boardId" = ${boardId}::uuid FOR UPDATE`;
      const { row, access } = await findBoard(tx, caller, boardId);
      if (!access.permissions.canManage) {
        throw new ApiError('permission-denied', 'managing this board needs the MANAGER or OWNER role', { code: 'WHITEBOARD_MANAGE_DENIED' });
      }
      return fn(tx, row);
    });
  }

  async function item(tx: Tx | Db, caller: Caller, id: bigint): Promise<WhiteboardItem> {
    const row = await tx.whiteboard.findUniqueOrThrow({ where: { id }, include: BOARD_INCLUDE(caller.rootAccountId) });
    return { board: boardView(row), access: accessOf(row, caller) ?? { role: 'VIEWER', permissions: { canView: false, canEdit: false, canManage: false } } };
  }

  function accessChanged(board: { boardId: string; accessVersion: bigint }): void {
    publications.publish(accessTopic, { boardId: board.boardId, accessVersion: board.accessVersion });
  }

  /** The ACL target: any active root account other than the owner. */
  async function memberAccount(tx: Tx, accountId: string): Promise<bigint> {
    const notFound = () => new ApiError('not-found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
    if (!PUBLIC_ID.test(accountId)) throw notFound();
    const account = await tx.account.findFirst({ where: { publicId: accountId, kind: 'ROOT', status: 'ACTIVE' }, select: { id: true } });
    if (!account) throw notFound();
    return account.id;
  }

  return {
    /**
     * Boards the caller owns, is a member of, or has opened by link, most recently updated
     * first. A board open to every signed-in account is listed to others only once they
     * have visited it (GET or its room), and only while the link still opens it.
     */
    async listWhiteboards(
      caller: Caller,
      input: { includeArchived?: boolean; limit?: number; pageToken?: string },
      /**
       * Relations a GraphQL selection reads besides the ones access needs (Pothos' query for
       * the Whiteboard type): they are read with the page, one statement per relation
       * whatever its size. Its `aclEntries`, when given, lists every entry, each with its
       * `principalAccountId`, and stands in for the caller's own.
       */
      include: Prisma.WhiteboardInclude = {},
    ) {
      requirePermission(caller, 'READ');
      const limit = pageLimit(input.limit, WHITEBOARD_LIST_MAX, WHITEBOARD_LIST_DEFAULT);
      const includeArchived = input.includeArchived ?? false;
      const binding = {
        operation: 'listWhiteboards',
        caller: caller.rootPublicId,
        filters: { includeArchived, order: 'updatedAt desc' },
      };
      const cursor = pageTokens.decode<UpdatedFirstCursor>(input.pageToken, binding);
      const rows = await db.whiteboard.findMany({
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
      const page = toPage(rows as BoardRow[], limit, pageTokens, binding, (r) => ({ updatedAt: r.updatedAt.toISOString(), id: r.id.toString() }));
      const boards: (WhiteboardItem & { row: BoardRow })[] = [];
      for (const row of page.items) {
        const access = accessOf(row, caller);
        if (access) boards.push({ board: boardView(row), access, row });
      }
      return { boards, nextPageToken: page.nextPageToken };
    },

    async getWhiteboard(caller: Caller, input: { boardId: string }): Promise<WhiteboardItem> {
      requirePermission(caller, 'READ');
      const { row, access } = await findBoard(db, caller, input.boardId);
      await recordVisit(caller, row);
      return { board: boardView(row), access };
    },

    async createWhiteboard(
      caller: Caller,
      input: { title: string; audience?: string; defaultRole?: string; initialSnapshot?: unknown },
    ): Promise<WhiteboardItem> {
      requirePermission(caller, WHITEBOARD_WRITE_PERMISSION);
      const title = checkTitle(input.title);
      const audience = checkEnum(AUDIENCES, input.audience ?? 'PRIVATE', 'audience');
      const defaultRole = checkEnum(DEFAULT_ROLES, input.defaultRole ?? 'VIEWER', 'defaultRole');
      const scene = input.initialSnapshot === undefined ? EMPTY_SCENE : checkScene(input.initialSnapshot);
      await limiter.admit('whiteboard.create', { caller });
      const now = clock.now();
      const row = await db.$transaction(async (tx) => {
        // The owner's row is held so two creations cannot both take the last place.
        await tx.$executeRaw`SELECT 1 FROM "Account" WHERE id = ${caller.rootAccountId} FOR UPDATE`;
        if ((await tx.whiteboard.count({ where: { ownerAccountId: caller.rootAccountId } })) >= MAX_BOARDS_PER_ACCOUNT) {
          throw new ApiError('conflict', `an account owns at most ${MAX_BOARDS_PER_ACCOUNT} boards, archived ones included`, {
            code: 'WHITEBOARD_LIMIT_REACHED',
          });
        }
        return tx.whiteboard.create({
          data: {
            ownerAccountId: caller.rootAccountId,
            title,
            audience,
            defaultRole,
            initialSnapshot: scene as unknown as Prisma.InputJsonValue,
            yjsState: Buffer.from(sceneToYjsUpdate(scene)),
            createdAt: now,
            updatedAt: now,
          },
          select: { id: true },
        });
      });
      return item(db, caller, row.id);
    },

    /** Title, audience, default role, archive state; a field left out stays as it is. */
    async updateWhiteboard(
      caller: Caller,
      input: { boardId: string; title?: string; audience?: string; defaultRole?: string; archived?: boolean },
    ): Promise<WhiteboardItem> {
      const title = input.title === undefined ? undefined : checkTitle(input.title);
      const audience = input.audience === undefined ? undefined : checkEnum(AUDIENCES, input.audience, 'audience');
      const defaultRole = input.defaultRole === undefined ? undefined : checkEnum(DEFAULT_ROLES, input.defaultRole, 'defaultRole');
      const result = await manage(caller, input.boardId, 'whiteboard.update', async (tx, row) => {
        const data: Prisma.WhiteboardUpdateInput = {};
        let accessChange = false;
        if (title !== undefined && title !== row.title) data.title = title;
        if (audience !== undefined && audience !== row.audience) {
          data.audience = audience;
          accessChange = true;
        }
        if (defaultRole !== undefined && defaultRole !== row.defaultRole) {
          data.defaultRole = defaultRole;
          accessChange = true;
        }
        if (input.archived !== undefined && input.archived !== (row.archivedAt !== null)) {
          data.archivedAt = input.archived ? clock.now() : null;
          accessChange = true;
        }
        if (Object.keys(data).length === 0) return { item: await item(tx, caller, row.id), accessChange };
        await tx.whiteboard.update({
          where: { id: row.id },
          data: { ...data, updatedAt: clock.now(), ...(accessChange ? { accessVersion: { increment: 1 } } : {}) },
        });
        return { item: await item(tx, caller, row.id), accessChange };
      });
      if (result.accessChange) accessChanged(result.item.board);
      return result.item;
    },

    /** Adds a member or changes its role; setting the role it has changes nothing. */
    async setWhiteboardMember(caller: Caller, input: { boardId: string; accountId: string; role: string }): Promise<WhiteboardItem> {
      const role = checkEnum(MEMBER_ROLES, input.role, 'role');
      const result = await manage(caller, input.boardId, 'whiteboard.member', async (tx, row) => {
        const principal = await memberAccount(tx, input.accountId);
        if (principal === row.ownerAccountId) throw invalidArgument('accountId', 'is the board’s owner, whose role cannot change', 'owner');
        const existing = await tx.whiteboardAclEntry.findUnique({
          where: { whiteboardId_principalAccountId: { whiteboardId: row.id, principalAccountId: principal } },
        });
        if (existing?.role === role) return { item: await item(tx, caller, row.id), changed: false };
        if (!existing && (await tx.whiteboardAclEntry.count({ where: { whiteboardId: row.id } })) >= MAX_MEMBERS_PER_BOARD) {
          throw invalidArgument('accountId', `a board has at most ${MAX_MEMBERS_PER_BOARD} members`, 'max-members');
        }
        const now = clock.now();
        await tx.whiteboardAclEntry.upsert({
          where: { whiteboardId_principalAccountId: { whiteboardId: row.id, principalAccountId: principal } },
          create: { whiteboardId: row.id, principalAccountId: principal, role, createdAt: now, updatedAt: now },
          update: { role, updatedAt: now },
        });
        await tx.whiteboard.update({ where: { id: row.id }, data: { accessVersion: { increment: 1 }, updatedAt: now } });
        return { item: await item(tx, caller, row.id), changed: true };
      });
      if (result.changed) accessChanged(result.item.board);
      return result.item;
    },

    /** Idempotent: removing an account that is not a member changes nothing. */
    async removeWhiteboardMember(caller: Caller, input: { boardId: string; accountId: string }): Promise<WhiteboardItem> {
      const result = await manage(caller, input.boardId, 'whiteboard.member', async (tx, row) => {
        const principal = await memberAccount(tx, input.accountId);
        const deleted = await tx.whiteboardAclEntry.deleteMany({ where: { whiteboardId: row.id, principalAccountId: principal } });
        if (deleted.count === 0) return { item: await item(tx, caller, row.id), changed: false };
        await tx.whiteboard.update({ where: { id: row.id }, data: { accessVersion: { increment: 1 }, updatedAt: clock.now() } });
        // A manager who removed itself no longer sees the board: answer with what it had.
        const after = await tx.whiteboard.findUniqueOrThrow({ where: { id: row.id }, include: BOARD_INCLUDE(caller.rootAccountId) });
        const access = accessOf(after, caller);
        return { item: { board: boardView(after), access: access ?? { role: 'VIEWER' as const, permissions: { canView: false, canEdit: false, canManage: false } } }, changed: true };
      });
      if (result.changed) accessChanged(result.item.board);
      return result.item;
    },

    /**
     * Deletes a board with its members and its content; the owner's alone (a member that
     * sees the board gets 403, anyone else 404). Once committed, every open room of the
     * board, on every process, is closed for everyone (BOARD_DELETED).
     */
    async deleteWhiteboard(caller: Caller, input: { boardId: string }): Promise<{ boardId: string }> {
      requirePermission(caller, WHITEBOARD_WRITE_PERMISSION);
      // Charged before the board is read: a 429, or a 503 while the authority is away, does nothing.
      await limiter.admit('whiteboard.delete', { caller });
      const gone = await db.$transaction(async (tx) => {
        if (!isCanonicalBoardId(input.boardId)) throw boardNotFound();
        await tx.$executeRaw`SELECT 1 FROM "Whiteboard" WHERE "boardId" = ${input.boardId}::uuid FOR UPDATE`;
        const { row, access } = await findBoard(tx, caller, input.boardId);
        if (access.role !== 'OWNER') {
          throw new ApiError('permission-denied', 'only the owner deletes a board', { code: 'WHITEBOARD_DELETE_DENIED' });
        }
        // The ACL entries go with the row (ON DELETE CASCADE).
        await tx.whiteboard.delete({ where: { id: row.id } });
        return { boardId: row.boardId, accessVersion: row.accessVersion + 1n };
      });
      publications.publish(accessTopic, { ...gone, deleted: true });
      return { boardId: gone.boardId };
    },

    /** The owner and every ACL entry with its role, owner first then by when they were added (at most 201). */
    async listWhiteboardMembers(caller: Caller, input: { boardId: string }): Promise<WhiteboardMember[]> {
      requirePermission(caller, 'READ');
      const { row } = await findBoard(db, caller, input.boardId);
      const entries = await db.whiteboardAclEntry.findMany({
        where: { whiteboardId: row.id },
        include: { principalAccount: { select: { publicId: true } } },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      return [
        { accountId: row.ownerAccount.publicId, role: 'OWNER', addedAt: row.createdAt },
        ...entries.map((e) => ({ accountId: e.principalAccount.publicId, role: e.role as MemberRole, addedAt: e.createdAt })),
      ];
    },

    /**
     * The board's scene now: the open room's document when this process has one (edits not
     * stored yet included), else the stored state.
     */
    async exportWhiteboard(caller: Caller, input: { boardId: string }): Promise<WhiteboardExport> {
      requirePermission(caller, 'READ');
      const { row } = await findBoard(db, caller, input.boardId);
      const live = liveDocument(row.boardId);
      if (live) return { boardId: row.boardId, scene: yjsToScene(live) };
      const doc = new Y.Doc();
      try {
        if (row.yjsState && row.yjsState.length > 0) {
          try {
            Y.decodeUpdate(row.yjsState);
            Y.applyUpdate(doc, row.yjsState);
          } catch {
            throw new ApiError('unavailable', 'the stored state of this board cannot be read', { code: 'BOARD_UNREADABLE' });
          }
        }
        return { boardId: row.boardId, scene: yjsToScene(doc) };
      } finally {
        doc.destroy();
      }
    },

    /** The board's versions, newest first (at most VERSIONS_KEPT); anyone with a role reads them. */
    async listWhiteboardVersions(caller: Caller, input: { boardId: string }): Promise<WhiteboardVersion[]> {
      requirePermission(caller, 'READ');
      const { row } = await findBoard(db, caller, input.boardId);
      const rows = await db.$queryRaw<{ versionId: string; createdAt: Date; sizeBytes: number }[]>`
        SELECT "versionId"::text AS "versionId", "createdAt", octet_length("yjsState")::int AS "sizeBytes"
        FROM "WhiteboardVersion" WHERE "whiteboardId" = ${row.id}
        ORDER BY "createdAt" DESC, id DESC LIMIT ${VERSIONS_KEPT}`;
      return rows.map((r) => ({ versionId: r.versionId, createdAt: r.createdAt, sizeBytes: Number(r.sizeBytes) }));
    },

    /**
     * Makes the board's content that of one of its versions, as a new edit: applied to the
     * open room's document as one Yjs transaction, so every connection receives it and the
     * versions and history go on from there (the restore is itself undone by restoring a
     * later version). A restore whose document would pass the size cap is 409
     * DOCUMENT_TOO_LARGE and changes nothing. Needs canEdit: a role that cannot edit is 403 WHITEBOARD_EDIT_DENIED
     * (it sees the board), a version of another board 404.
     */
    async restoreWhiteboardVersion(caller: Caller, input: { boardId: string; versionId: string }): Promise<WhiteboardRestored> {
      requirePermission(caller, WHITEBOARD_WRITE_PERMISSION);
      // Charged before the board is read: a 429, or a 503 while the authority is away, does nothing.
      await limiter.admit('whiteboard.restore', { caller });
      const { row, access } = await findBoard(db, caller, input.boardId);
      if (!access.permissions.canEdit) {
        throw new ApiError('permission-denied', 'restoring a version needs the EDITOR role or higher on a board that is not archived', {
          code: 'WHITEBOARD_EDIT_DENIED',
        });
      }
      if (!isCanonicalBoardId(input.versionId)) throw versionNotFound();
      const version = await db.whiteboardVersion.findFirst({
        where: { versionId: input.versionId, whiteboardId: row.id },
        select: { versionId: true, yjsState: true },
      });
      if (!version) throw versionNotFound();
      await editLive(row.boardId, (doc, maxBytes) => restoreWithin(doc, version.yjsState, maxBytes));
      return { boardId: row.boardId, versionId: version.versionId, restoredAt: clock.now() };
    },

    // ---- live rooms ------------------------------------------------------------------

    /** Where export finds the open room documents of this process. */
    readLiveDocuments(find: (boardId: string) => Y.Doc | undefined): void {
      liveDocument = find;
    },

    /**
     * The caller's access to a board for a room connection, or undefined (no board or no
     * role). `visit`: the connection is opening the room (a visit, for "shared with me").
     */
    async roomAccess(caller: Caller, boardId: string, options: { visit?: boolean } = {}): Promise<ResolvedAccess | undefined> {
      if (caller.kind === 'apiKey' && !caller.permissions.has('READ')) return undefined;
      return findBoard(db, caller, boardId).then(
        async (b) => {
          if (options.visit) await recordVisit(caller, b.row);
          return b.access;
        },
        (err: unknown) => {
          if (err instanceof ApiError && err.key === 'not-found') return undefined;
          throw err;
        },
      );
    },

    /** The stored Y.Doc of a board (one Yjs update), or undefined when there is no board. */
    loadContent,

    /**
     * Stores a board's Y.Doc, merged with what is stored: a process holding an older copy
     * can never drop updates another process stored first. Content edits make the board
     * "recently updated" for the list.
     */
    storeContent,

    /** How restores reach the open rooms of this process (set by the rooms). */
    editLiveDocuments(editor: LiveEditor): void {
      editLive = editor;
    },

    /**
     * Follows the access changes of every board, from every process, after commit: `changed`
     * for each, `gap` when some may have been lost on the way (every open connection must
     * then be resolved again). It never ends; the returned function stops it.
     */
    watchAccess(handlers: { changed(boardId: string, deleted: boolean): void; gap(): void }): () => void {
      const listener = (event: CustomEvent) => {
        if (isResync(event.detail)) handlers.gap();
        else if (Array.isArray(event.detail)) {
          for (const change of event.detail as WhiteboardAccessChanged[]) handlers.changed(change.boardId, change.deleted === true);
        }
      };
      deps.events.addEventListener(accessTopic, listener);
      return () => deps.events.removeEventListener(accessTopic, listener);
    },
  };
}

export type WhiteboardService = ReturnType<typeof createWhiteboardService>;
