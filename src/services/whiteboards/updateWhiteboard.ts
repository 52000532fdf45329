import type { Caller } from '../../auth/caller.ts';
import { AUDIENCES, checkEnum, checkTitle, DEFAULT_ROLES } from '../../domain/whiteboard.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { manage, readItem } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import type { BoardParams } from './getWhiteboard.schema.ts';
import type { UpdateWhiteboardBody } from './updateWhiteboard.schema.ts';
import type { WhiteboardItem } from './views.ts';

/**
 * Title, audience, default role, archive state; a field left out stays as it is. A change
 * of anything but the title increments `accessVersion` and is published after commit.
 */
export async function updateWhiteboard(ctx: WhiteboardsContext, caller: Caller, input: UpdateWhiteboardBody & BoardParams): Promise<WhiteboardItem> {
  const title = input.title === undefined ? undefined : checkTitle(input.title);
  const audience = input.audience === undefined ? undefined : checkEnum(AUDIENCES, input.audience, 'audience');
  const defaultRole = input.defaultRole === undefined ? undefined : checkEnum(DEFAULT_ROLES, input.defaultRole, 'defaultRole');
  const result = await manage(ctx, caller, input.boardId, 'whiteboard.update', async (tx, row) => {
    const data: Prisma.WhiteboardUpdateInput = {};
    let accessChange = false;
    if (title !== undefined && title !== row.title) data.title = title;
    if (audience !== undefined && audience !== row.audience) {
      data.audience = audience;
      accessChange = true;
    }
    if (defaultRole !== undefined && defaultRole !== row.defaultRole) {
      data.defaultRole = defaultRole;
      accessChange = true;
    }
    if (input.archived !== undefined && input.archived !== (row.archivedAt !== null)) {
      data.archivedAt = input.archived ? ctx.clock.now() : null;
      accessChange = true;
    }
    if (Object.keys(data).length === 0) return { item: await readItem(tx, caller, row.id), accessChange };
    await tx.whiteboard.update({
      where: { id: row.id },
      data: { ...data, updatedAt: ctx.clock.now(), ...(accessChange ? { accessVersion: { increment: 1 } } : {}) },
    });
    return { item: await readItem(tx, caller, row.id), accessChange };
  });
  if (result.accessChange) ctx.accessChanges.changed(result.item.board);
  return result.item;
}
