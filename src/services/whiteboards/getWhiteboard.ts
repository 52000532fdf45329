import type { Caller } from '../../auth/caller.ts';
import { requirePermission } from '../access.ts';
import { findBoard, recordVisit } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import type { BoardParams } from './getWhiteboard.schema.ts';
import { boardView, type WhiteboardItem } from './views.ts';

/** One board and the caller's access; a read by link is a visit ("shared with me"). */
export async function getWhiteboard(ctx: WhiteboardsContext, caller: Caller, input: BoardParams): Promise<WhiteboardItem> {
  requirePermission(caller, 'READ');
  const { row, access } = await findBoard(ctx.db, caller, input.boardId);
  await recordVisit(ctx, caller, row);
  return { board: boardView(row), access };
}
