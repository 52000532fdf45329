import type { Caller } from '../../auth/caller.ts';
import type { MemberRole } from '../../domain/whiteboard.ts';
import { requirePermission } from '../access.ts';
import { findBoard } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import type { BoardParams } from './getWhiteboard.schema.ts';
import type { WhiteboardMember } from './views.ts';

/** The owner and every ACL entry with its role, owner first then by when they were added (at most 201). */
export async function listWhiteboardMembers(ctx: WhiteboardsContext, caller: Caller, input: BoardParams): Promise<WhiteboardMember[]> {
  requirePermission(caller, 'READ');
  const { row } = await findBoard(ctx.db, caller, input.boardId);
  const entries = await ctx.db.whiteboardAclEntry.findMany({
    where: { whiteboardId: row.id },
    include: { principalAccount: { select: { publicId: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return [
    { accountId: row.ownerAccount.publicId, role: 'OWNER', addedAt: row.createdAt },
    ...entries.map((e) => ({ accountId: e.principalAccount.publicId, role: e.role as MemberRole, addedAt: e.createdAt })),
  ];
}
