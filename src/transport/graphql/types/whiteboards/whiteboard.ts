import type { Audience as AudienceValue, DefaultRole as DefaultRoleValue, MemberRole as MemberRoleValue } from '../../../../domain/whiteboard.ts';
import { EMPTY_SCENE, type Scene } from '../../../../services/whiteboards/index.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { Audience, DefaultRole } from './enums.ts';
import { MemberRef } from './whiteboardMember.ts';
import { SceneRef } from './whiteboardScene.ts';

/**
 * A board is its Prisma row: a page of boards reads the relations its selection asks for
 * (the owner's id, the members) with the page, one statement per relation, instead of one
 * query per board.
 */
export const Board = builder.prismaObject('Whiteboard', {
  description: 'A collaborative whiteboard (spec 2.13); its live room is the WebSocket /collab, document name = boardId',
  fields: (t) => ({
    boardId: t.exposeString('boardId'),
    ownerAccountId: t.string({ select: { ownerAccount: { select: { publicId: true } } }, resolve: (b) => b.ownerAccount.publicId }),
    title: t.exposeString('title'),
    audience: t.field({ type: Audience, resolve: (b) => b.audience as AudienceValue }),
    defaultRole: t.field({ type: DefaultRole, resolve: (b) => b.defaultRole as DefaultRoleValue }),
    accessVersion: t.field({ type: 'Int64', resolve: (b) => b.accessVersion }),
    initialSnapshot: t.field({ type: SceneRef, resolve: (b) => (b.initialSnapshot as unknown as Scene | null) ?? EMPTY_SCENE }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    archivedAt: t.field({ type: 'DateTime', nullable: true, resolve: (b) => b.archivedAt }),
    members: t.field({
      type: [MemberRef],
      description: 'The owner first, then every member by when it was added (GET /v1/collab/whiteboards/{boardId}/members)',
      // `principalAccountId` lets the list service find the caller's own entry among these
      // (listWhiteboards' `include`).
      select: {
        ownerAccount: { select: { publicId: true } },
        aclEntries: {
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { role: true, createdAt: true, principalAccountId: true, principalAccount: { select: { publicId: true } } },
        },
      },
      resolve: (b) => [
        { accountId: b.ownerAccount.publicId, role: 'OWNER' as const, addedAt: b.createdAt },
        ...b.aclEntries.map((e) => ({ accountId: e.principalAccount.publicId, role: e.role as MemberRoleValue, addedAt: e.createdAt })),
      ],
    }),
    currentScene: t.field({
      type: SceneRef,
      description: 'The scene now, as the Yjs document holds it, unstored room edits included (GET /v1/collab/whiteboards/{boardId}/export)',
      // Each one decodes a whole document (up to 16 MiB): a page of boards asking for it
      // passes the cost limit only when short (at most 29 scenes a query).
      complexity: 1_000,
      resolve: async (b, _args, ctx) => (await ctx.services.whiteboards.exportWhiteboard(callerOf(ctx), { boardId: b.boardId })).scene,
    }),
  }),
});
