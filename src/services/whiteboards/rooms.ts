import type * as Y from 'yjs';
import type { Caller } from '../../auth/caller.ts';
import { ApiError } from '../../domain/errorCatalogue.ts';
import type { ResolvedAccess } from '../../domain/whiteboard.ts';
import { findBoard, recordVisit } from './access.ts';
import type { WhiteboardsContext } from './context.ts';

/**
 * Applies `edit` to a board's document as one transaction: the open room's document when
 * rooms run in this process (every connection receives the change, other processes through
 * the Redis fan-out), stored afterwards.
 */
export type LiveEditor = (boardId: string, edit: (doc: Y.Doc, maxDocumentBytes: number) => void) => Promise<void>;

/** What the rooms of this process register: export reads their documents, restores edit them. */
export interface LiveRooms {
  document: (boardId: string) => Y.Doc | undefined;
  /** Unset: no rooms here, edits go to the stored state. */
  edit: LiveEditor | undefined;
}

/**
 * The caller's access to a board for a room connection, or undefined (no board or no
 * role). `visit`: the connection is opening the room (a visit, for "shared with me").
 */
export async function roomAccess(ctx: WhiteboardsContext, caller: Caller, boardId: string, options: { visit?: boolean } = {}): Promise<ResolvedAccess | undefined> {
  if (caller.kind === 'apiKey' && !caller.permissions.has('READ')) return undefined;
  return findBoard(ctx.db, caller, boardId).then(
    async (b) => {
      if (options.visit) await recordVisit(ctx, caller, b.row);
      return b.access;
    },
    (err: unknown) => {
      if (err instanceof ApiError && err.key === 'not-found') return undefined;
      throw err;
    },
  );
}
