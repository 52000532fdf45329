import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { requirePermission } from '../access.ts';
import { lockBoard, WHITEBOARD_WRITE_PERMISSION } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import type { BoardParams } from './getWhiteboard.schema.ts';

/**
 * Deletes a board with its members and its content; the owner's alone (a member that sees
 * the board gets 403, anyone else 404). Once committed, every open room of the board, on
 * every process, is closed for everyone (BOARD_DELETED).
 */
export async function deleteWhiteboard(ctx: WhiteboardsContext, caller: Caller, input: BoardParams): Promise<{ boardId: string }> {
  requirePermission(caller, WHITEBOARD_WRITE_PERMISSION);
  // Charged before the board is read: a 429, or a 503 while the authority is away, does nothing.
  await ctx.limiter.admit('whiteboard.delete', { caller });
  const gone = await ctx.db.$transaction(async (tx) => {
    const { row, access } = await lockBoard(tx, caller, input.boardId);
    if (access.role !== 'OWNER') {
      throw errors.WHITEBOARD_DELETE_DENIED('only the owner deletes a board');
    }
    // The ACL entries go with the row (ON DELETE CASCADE).
    await tx.whiteboard.delete({ where: { id: row.id } });
    return { boardId: row.boardId, accessVersion: row.accessVersion + 1n };
  });
  ctx.accessChanges.deleted(gone);
  return { boardId: gone.boardId };
}
