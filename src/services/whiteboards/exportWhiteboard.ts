import * as Y from 'yjs';
import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { requirePermission } from '../access.ts';
import { findBoard } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import type { BoardParams } from './getWhiteboard.schema.ts';
import { yjsToScene } from './scene.ts';
import type { WhiteboardExport } from './views.ts';

/**
 * The board's scene now: the open room's document when this process has one (edits not
 * stored yet included), else the stored state.
 */
export async function exportWhiteboard(ctx: WhiteboardsContext, caller: Caller, input: BoardParams): Promise<WhiteboardExport> {
  requirePermission(caller, 'READ');
  const { row } = await findBoard(ctx.db, caller, input.boardId);
  const live = ctx.rooms.document(row.boardId);
  if (live) return { boardId: row.boardId, scene: yjsToScene(live) };
  const doc = new Y.Doc();
  try {
    if (row.yjsState && row.yjsState.length > 0) {
      try {
        Y.decodeUpdate(row.yjsState);
        Y.applyUpdate(doc, row.yjsState);
      } catch {
        throw errors.BOARD_UNREADABLE('the stored state of this board cannot be read');
      }
    }
    return { boardId: row.boardId, scene: yjsToScene(doc) };
  } finally {
    doc.destroy();
  }
}
