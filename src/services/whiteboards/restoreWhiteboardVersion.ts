import type * as Y from 'yjs';
import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { isCanonicalBoardId } from '../../domain/whiteboard.ts';
import { requirePermission } from '../access.ts';
import { findBoard, versionNotFound, WHITEBOARD_WRITE_PERMISSION } from './access.ts';
import { editStored } from './content.ts';
import type { WhiteboardsContext } from './context.ts';
import type { RestoreWhiteboardVersionParams } from './restoreWhiteboardVersion.schema.ts';
import { restoreWithin } from './versions.ts';
import type { WhiteboardRestored } from './views.ts';

/**
 * Makes the board's content that of one of its versions, as a new edit: applied to the
 * open room's document as one Yjs transaction, so every connection receives it and the
 * versions and history go on from there (the restore is itself undone by restoring a
 * later version). A restore whose document would pass the size cap is 409
 * DOCUMENT_TOO_LARGE and changes nothing. Needs canEdit: a role that cannot edit is 403
 * WHITEBOARD_EDIT_DENIED (it sees the board), a version of another board 404.
 */
export async function restoreWhiteboardVersion(ctx: WhiteboardsContext, caller: Caller, input: RestoreWhiteboardVersionParams): Promise<WhiteboardRestored> {
  requirePermission(caller, WHITEBOARD_WRITE_PERMISSION);
  // Charged before the board is read: a 429, or a 503 while the authority is away, does nothing.
  await ctx.limiter.admit('whiteboard.restore', { caller });
  const { row, access } = await findBoard(ctx.db, caller, input.boardId);
  if (!access.permissions.canEdit) {
    throw errors.WHITEBOARD_EDIT_DENIED('restoring a version needs the EDITOR role or higher on a board that is not archived');
  }
  if (!isCanonicalBoardId(input.versionId)) throw versionNotFound();
  const version = await ctx.db.whiteboardVersion.findFirst({
    where: { versionId: input.versionId, whiteboardId: row.id },
    select: { versionId: true, yjsState: true },
  });
  if (!version) throw versionNotFound();
  const restore = (doc: Y.Doc, maxBytes: number) => restoreWithin(doc, version.yjsState, maxBytes);
  await (ctx.rooms.edit ? ctx.rooms.edit(row.boardId, restore) : editStored(ctx, row.boardId, restore));
  return { boardId: row.boardId, versionId: version.versionId, restoredAt: ctx.clock.now() };
}
