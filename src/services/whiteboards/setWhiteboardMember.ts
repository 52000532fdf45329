import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { checkEnum, MEMBER_ROLES } from '../../domain/whiteboard.ts';
import { manage, memberAccount, readItem } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import { MAX_MEMBERS_PER_BOARD, type MemberParams, type SetWhiteboardMemberBody } from './setWhiteboardMember.schema.ts';
import type { WhiteboardItem } from './views.ts';

/** Adds a member or changes its role; setting the role it has changes nothing. */
export async function setWhiteboardMember(ctx: WhiteboardsContext, caller: Caller, input: MemberParams & SetWhiteboardMemberBody): Promise<WhiteboardItem> {
  const role = checkEnum(MEMBER_ROLES, input.role, 'role');
  const result = await manage(ctx, caller, input.boardId, 'whiteboard.member', async (tx, row) => {
    const principal = await memberAccount(tx, input.accountId);
    if (principal === row.ownerAccountId) throw invalidArgument('accountId', 'is the board’s owner, whose role cannot change', 'owner');
    const existing = await tx.whiteboardAclEntry.findUnique({
      where: { whiteboardId_principalAccountId: { whiteboardId: row.id, principalAccountId: principal } },
    });
    if (existing?.role === role) return { item: await readItem(tx, caller, row.id), changed: false };
    if (!existing && (await tx.whiteboardAclEntry.count({ where: { whiteboardId: row.id } })) >= MAX_MEMBERS_PER_BOARD) {
      throw invalidArgument('accountId', `a board has at most ${MAX_MEMBERS_PER_BOARD} members`, 'max-members');
    }
    const now = ctx.clock.now();
    await tx.whiteboardAclEntry.upsert({
      where: { whiteboardId_principalAccountId: { whiteboardId: row.id, principalAccountId: principal } },
      create: { whiteboardId: row.id, principalAccountId: principal, role, createdAt: now, updatedAt: now },
      update: { role, updatedAt: now },
    });
    await tx.whiteboard.update({ where: { id: row.id }, data: { accessVersion: { increment: 1 }, updatedAt: now } });
    return { item: await readItem(tx, caller, row.id), changed: true };
  });
  if (result.changed) ctx.accessChanges.changed(result.item.board);
  return result.item;
}
