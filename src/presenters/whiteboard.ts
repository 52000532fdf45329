import { z } from 'zod';
import { AUDIENCES, DEFAULT_ROLES, WHITEBOARD_ROLES } from '../domain/whiteboard.ts';
import type { Scene, WhiteboardItem } from '../services/whiteboards/index.ts';
import { int64String, nextPageToken, rfc3339, toInt64, toRfc3339 } from './scalars.ts';

/** A board's scene {elements, version} (docs/api-decisions.md, "Whiteboards"): each element as the client wrote it. */
export const sceneSchema = z.strictObject({ elements: z.array(z.record(z.string(), z.unknown())), version: z.number().int() });

export const presentScene = (s: Scene): z.infer<typeof sceneSchema> => ({ elements: s.elements, version: s.version });

/** Spec 2.13: a board and the caller's access to it. */
export const whiteboardSchema = z.strictObject({
  board: z.strictObject({
    boardId: z.string(),
    ownerAccountId: z.string(),
    title: z.string(),
    audience: z.enum(AUDIENCES),
    defaultRole: z.enum(DEFAULT_ROLES),
    accessVersion: int64String.describe('Increases on every change of audience, default role, members or archive state'),
    initialSnapshot: sceneSchema,
    createdAt: rfc3339,
    updatedAt: rfc3339,
    archivedAt: rfc3339.optional().describe('Absent unless archived'),
  }),
  access: z.strictObject({
    role: z.enum(WHITEBOARD_ROLES),
    permissions: z.strictObject({ canView: z.boolean(), canEdit: z.boolean(), canManage: z.boolean() }),
  }),
});

export const whiteboardsSchema = z.strictObject({ boards: z.array(whiteboardSchema), nextPageToken });

export function presentWhiteboard({ board, access }: WhiteboardItem): z.infer<typeof whiteboardSchema> {
  return {
    board: {
      boardId: board.boardId,
      ownerAccountId: board.ownerAccountId,
      title: board.title,
      audience: board.audience,
      defaultRole: board.defaultRole,
      accessVersion: toInt64(board.accessVersion),
      initialSnapshot: presentScene(board.initialSnapshot),
      createdAt: toRfc3339(board.createdAt),
      updatedAt: toRfc3339(board.updatedAt),
      ...(board.archivedAt ? { archivedAt: toRfc3339(board.archivedAt) } : {}),
    },
    access: { role: access.role, permissions: { canView: access.permissions.canView, canEdit: access.permissions.canEdit, canManage: access.permissions.canManage } },
  };
}

/** DELETE /v1/collab/whiteboards/{boardId}: the board that is gone. */
export const whiteboardDeletedSchema = z.strictObject({ boardId: z.string() });

export const presentWhiteboardDeleted = (r: { boardId: string }): z.infer<typeof whiteboardDeletedSchema> => ({ boardId: r.boardId });
