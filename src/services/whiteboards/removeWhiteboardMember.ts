import type { Caller } from '../../auth/caller.ts';
import { manage, memberAccount, readItem } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import type { MemberParams } from './setWhiteboardMember.schema.ts';
import type { WhiteboardItem } from './views.ts';

/** Idempotent: removing an account that is not a member changes nothing. */
export async function removeWhiteboardMember(ctx: WhiteboardsContext, caller: Caller, input: MemberParams): Promise<WhiteboardItem> {
  const result = await manage(ctx, caller, input.boardId, 'whiteboard.member', async (tx, row) => {
    const principal = await memberAccount(tx, input.accountId);
    const deleted = await tx.whiteboardAclEntry.deleteMany({ where: { whiteboardId: row.id, principalAccountId: principal } });
    if (deleted.count === 0) return { item: await readItem(tx, caller, row.id), changed: false };
    await tx.whiteboard.update({ where: { id: row.id }, data: { accessVersion: { increment: 1 }, updatedAt: ctx.clock.now() } });
    // A manager who removed itself no longer sees the board: answered with no access.
    return { item: await readItem(tx, caller, row.id), changed: true };
  });
  if (result.changed) ctx.accessChanges.changed(result.item.board);
  return result.item;
}
