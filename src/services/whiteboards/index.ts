import type * as Y from 'yjs';
import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { loadContent, storeContent } from './content.ts';
import type { WhiteboardsContext } from './context.ts';
import { createWhiteboard } from './createWhiteboard.ts';
import { deleteWhiteboard } from './deleteWhiteboard.ts';
import { exportWhiteboard } from './exportWhiteboard.ts';
import { getWhiteboard } from './getWhiteboard.ts';
import { listWhiteboardMembers } from './listWhiteboardMembers.ts';
import { listWhiteboards } from './listWhiteboards.ts';
import { listWhiteboardVersions } from './listWhiteboardVersions.ts';
import { removeWhiteboardMember } from './removeWhiteboardMember.ts';
import { restoreWhiteboardVersion } from './restoreWhiteboardVersion.ts';
import type { LiveEditor } from './liveRooms.ts';
import { roomAccess } from './roomAccess.ts';
import { setWhiteboardMember } from './setWhiteboardMember.ts';
import { updateWhiteboard } from './updateWhiteboard.ts';

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

export type { WhiteboardsContext } from './context.ts';
export { whiteboardsContext } from './context.ts';
export type { LiveEditor } from './liveRooms.ts';
export type { WhiteboardTopics } from './accessTopic.ts';
export type { WhiteboardItem, WhiteboardMember, WhiteboardRestored, WhiteboardVersion } from './views.ts';
export { boardNotFound } from './access.ts';
export { MAX_BOARDS_PER_ACCOUNT } from './createWhiteboard.schema.ts';
export { MAX_MEMBERS_PER_BOARD } from './setWhiteboardMember.schema.ts';
export { WHITEBOARD_LIST_DEFAULT, WHITEBOARD_LIST_MAX } from './listWhiteboards.schema.ts';
export { EMPTY_SCENE, yjsToScene, type Scene } from './scene.ts';
export { MAX_DOCUMENT_BYTES, VERSIONS_KEPT } from './versions.ts';

type Input<F extends (ctx: WhiteboardsContext, caller: Caller, input: never) => unknown> = Parameters<F>[2];

/**
 * The whiteboard operations, keyed by their operationId, then what the rooms of
 * src/transport/collab use. listWhiteboards takes the relations a GraphQL selection reads
 * (Pothos' query for the Whiteboard type) as `include`.
 */
export function createWhiteboardService(ctx: WhiteboardsContext) {
  return {
    listWhiteboards: (caller: Caller, input: Input<typeof listWhiteboards>, include: Prisma.WhiteboardInclude = {}) => listWhiteboards(ctx, caller, input, include),
    getWhiteboard: (caller: Caller, input: Input<typeof getWhiteboard>) => getWhiteboard(ctx, caller, input),
    createWhiteboard: (caller: Caller, input: Input<typeof createWhiteboard>) => createWhiteboard(ctx, caller, input),
    updateWhiteboard: (caller: Caller, input: Input<typeof updateWhiteboard>) => updateWhiteboard(ctx, caller, input),
    deleteWhiteboard: (caller: Caller, input: Input<typeof deleteWhiteboard>) => deleteWhiteboard(ctx, caller, input),
    listWhiteboardMembers: (caller: Caller, input: Input<typeof listWhiteboardMembers>) => listWhiteboardMembers(ctx, caller, input),
    exportWhiteboard: (caller: Caller, input: Input<typeof exportWhiteboard>) => exportWhiteboard(ctx, caller, input),
    setWhiteboardMember: (caller: Caller, input: Input<typeof setWhiteboardMember>) => setWhiteboardMember(ctx, caller, input),
    removeWhiteboardMember: (caller: Caller, input: Input<typeof removeWhiteboardMember>) => removeWhiteboardMember(ctx, caller, input),
    listWhiteboardVersions: (caller: Caller, input: Input<typeof listWhiteboardVersions>) => listWhiteboardVersions(ctx, caller, input),
    restoreWhiteboardVersion: (caller: Caller, input: Input<typeof restoreWhiteboardVersion>) => restoreWhiteboardVersion(ctx, caller, input),

    /** Where export finds the open room documents of this process (set by the rooms). */
    readLiveDocuments(find: (boardId: string) => Y.Doc | undefined): void {
      ctx.rooms.document = find;
    },
    /** How restores reach the open rooms of this process (set by the rooms). */
    editLiveDocuments(editor: LiveEditor): void {
      ctx.rooms.edit = editor;
    },
    roomAccess: (caller: Caller, boardId: string, options?: { visit?: boolean }) => roomAccess(ctx, caller, boardId, options),
    loadContent: (boardId: string) => loadContent(ctx, boardId),
    storeContent: (boardId: string, state: Uint8Array) => storeContent(ctx, boardId, state),
    watchAccess: (handlers: Parameters<WhiteboardsContext['accessChanges']['watch']>[0]) => ctx.accessChanges.watch(handlers),
  };
}

export type WhiteboardService = ReturnType<typeof createWhiteboardService>;
