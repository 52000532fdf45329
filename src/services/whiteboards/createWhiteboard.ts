import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { AUDIENCES, checkEnum, checkTitle, DEFAULT_ROLES } from '../../domain/whiteboard.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { requirePermission } from '../access.ts';
import { readItem, WHITEBOARD_WRITE_PERMISSION } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import { MAX_BOARDS_PER_ACCOUNT, type CreateWhiteboardBody } from './createWhiteboard.schema.ts';
import { checkScene, EMPTY_SCENE, sceneToYjsUpdate } from './scene.ts';
import type { WhiteboardItem } from './views.ts';

/** A board owned by the caller's root account, its document seeded from `initialSnapshot`. */
export async function createWhiteboard(ctx: WhiteboardsContext, caller: Caller, input: CreateWhiteboardBody): Promise<WhiteboardItem> {
  requirePermission(caller, WHITEBOARD_WRITE_PERMISSION);
  const title = checkTitle(input.title);
  const audience = checkEnum(AUDIENCES, input.audience ?? 'PRIVATE', 'audience');
  const defaultRole = checkEnum(DEFAULT_ROLES, input.defaultRole ?? 'VIEWER', 'defaultRole');
  const scene = input.initialSnapshot === undefined ? EMPTY_SCENE : checkScene(input.initialSnapshot);
  await ctx.limiter.admit('whiteboard.create', { caller });
  const now = ctx.clock.now();
  const row = await ctx.db.$transaction(async (tx) => {
    // The owner's row is held so two creations cannot both take the last place.
    await tx.$executeRaw`SELECT 1 FROM "Account" WHERE id = ${caller.rootAccountId} FOR UPDATE`;
    if ((await tx.whiteboard.count({ where: { ownerAccountId: caller.rootAccountId } })) >= MAX_BOARDS_PER_ACCOUNT) {
      throw errors.WHITEBOARD_LIMIT_REACHED(`an account owns at most ${MAX_BOARDS_PER_ACCOUNT} boards, archived ones included`);
    }
    return tx.whiteboard.create({
      data: {
        ownerAccountId: caller.rootAccountId,
        title,
        audience,
        defaultRole,
        initialSnapshot: scene as unknown as Prisma.InputJsonValue,
        yjsState: Buffer.from(sceneToYjsUpdate(scene)),
        createdAt: now,
        updatedAt: now,
      },
      select: { id: true },
    });
  });
  return readItem(ctx.db, caller, row.id);
}
