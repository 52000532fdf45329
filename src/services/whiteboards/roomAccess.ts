import type { Caller } from '../../auth/caller.ts';
import { ApiError } from '../../domain/errorCatalogue.ts';
import type { ResolvedAccess } from '../../domain/whiteboard.ts';
import { findBoard, recordVisit } from './access.ts';
import type { WhiteboardsContext } from './context.ts';

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
