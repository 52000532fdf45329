import { z } from 'zod';
import { AUDIENCES, DEFAULT_ROLES, MEMBER_ROLES, WHITEBOARD_ROLES } from '../../../domain/whiteboard.ts';
import type { Services } from '../../../services/index.ts';
import { createWhiteboardBody } from '../../../services/whiteboards/createWhiteboard.schema.ts';
import { deleteWhiteboardParams } from '../../../services/whiteboards/deleteWhiteboard.schema.ts';
import { exportWhiteboardParams } from '../../../services/whiteboards/exportWhiteboard.schema.ts';
import { getWhiteboardParams } from '../../../services/whiteboards/getWhiteboard.schema.ts';
import { VERSIONS_KEPT, type WhiteboardItem, type WhiteboardMember, type WhiteboardVersion } from '../../../services/whiteboards/index.ts';
import { listWhiteboardMembersParams } from '../../../services/whiteboards/listWhiteboardMembers.schema.ts';
import { listWhiteboardsQuery } from '../../../services/whiteboards/listWhiteboards.schema.ts';
import { listWhiteboardVersionsParams } from '../../../services/whiteboards/listWhiteboardVersions.schema.ts';
import { removeWhiteboardMemberParams } from '../../../services/whiteboards/removeWhiteboardMember.schema.ts';
import { restoreWhiteboardVersionParams } from '../../../services/whiteboards/restoreWhiteboardVersion.schema.ts';
import { setWhiteboardMemberBody, setWhiteboardMemberParams } from '../../../services/whiteboards/setWhiteboardMember.schema.ts';
import { updateWhiteboardBody, updateWhiteboardParams } from '../../../services/whiteboards/updateWhiteboard.schema.ts';
import { toInt64, toRfc3339 } from '../codec.ts';
import { defineRoute } from '../route.ts';

/**
 * Collaboration (spec 2.13, 4.8). The list is exactly 4.8; create, get, settings and
 * members are the routes issue 12 fixed for clients (docs/api-decisions.md, "Whiteboards").
 * The live room of a board is the WebSocket at /collab (src/transport/collab).
 */

const sceneSchema = z.object({ elements: z.array(z.record(z.string(), z.unknown())), version: z.number().int() });
const itemSchema = z.object({
  board: z.object({
    boardId: z.string(),
    ownerAccountId: z.string(),
    title: z.string(),
    audience: z.enum(AUDIENCES),
    defaultRole: z.enum(DEFAULT_ROLES),
    accessVersion: z.string(),
    initialSnapshot: sceneSchema,
    createdAt: z.string(),
    updatedAt: z.string(),
    archivedAt: z.string().optional(),
  }),
  access: z.object({
    role: z.enum(WHITEBOARD_ROLES),
    permissions: z.object({ canView: z.boolean(), canEdit: z.boolean(), canManage: z.boolean() }),
  }),
});

export const renderWhiteboard = ({ board, access }: WhiteboardItem) => ({
  board: {
    boardId: board.boardId,
    ownerAccountId: board.ownerAccountId,
    title: board.title,
    audience: board.audience,
    defaultRole: board.defaultRole,
    accessVersion: toInt64(board.accessVersion),
    initialSnapshot: board.initialSnapshot,
    createdAt: toRfc3339(board.createdAt),
    updatedAt: toRfc3339(board.updatedAt),
    ...(board.archivedAt ? { archivedAt: toRfc3339(board.archivedAt) } : {}),
  },
  access: { role: access.role, permissions: { ...access.permissions } },
});

export const renderVersion = (v: WhiteboardVersion) => ({ versionId: v.versionId, createdAt: toRfc3339(v.createdAt), sizeBytes: v.sizeBytes });

export const renderMember = (m: WhiteboardMember) => ({ accountId: m.accountId, role: m.role, addedAt: toRfc3339(m.addedAt) });

export function whiteboardRoutes(s: Services) {
  const boards = s.whiteboards;
  return [
    defineRoute({
      operationId: 'listWhiteboards',
      method: 'GET',
      url: '/v1/collab/whiteboards',
      summary: 'List whiteboards visible to the caller, most recently updated first',
      auth: 'caller',
      query: listWhiteboardsQuery,
      response: z.object({ boards: z.array(itemSchema), nextPageToken: z.string() }),
      handler: async ({ query }, ctx) => {
        const r = await boards.listWhiteboards(ctx.caller, query);
        return { boards: r.boards.map(renderWhiteboard), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'createWhiteboard',
      method: 'POST',
      url: '/v1/collab/whiteboards',
      summary: 'Create a whiteboard owned by the caller',
      auth: 'caller',
      body: createWhiteboardBody,
      response: itemSchema,
      handler: async ({ body }, ctx) => renderWhiteboard(await boards.createWhiteboard(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'getWhiteboard',
      method: 'GET',
      url: '/v1/collab/whiteboards/:boardId',
      summary: 'Get one whiteboard and the caller’s access',
      auth: 'caller',
      params: getWhiteboardParams,
      response: itemSchema,
      handler: async ({ params }, ctx) => renderWhiteboard(await boards.getWhiteboard(ctx.caller, params)),
    }),
    defineRoute({
      operationId: 'updateWhiteboard',
      method: 'PATCH',
      url: '/v1/collab/whiteboards/:boardId',
      summary: 'Change a whiteboard’s title, audience, default role or archive state',
      auth: 'caller',
      params: updateWhiteboardParams,
      body: updateWhiteboardBody,
      response: itemSchema,
      handler: async ({ params, body }, ctx) => renderWhiteboard(await boards.updateWhiteboard(ctx.caller, { ...body, ...params })),
    }),
    defineRoute({
      operationId: 'deleteWhiteboard',
      method: 'DELETE',
      url: '/v1/collab/whiteboards/:boardId',
      summary: 'Delete a whiteboard, its members and its content (owner only); its open rooms close (BOARD_DELETED)',
      auth: 'caller',
      params: deleteWhiteboardParams,
      response: z.object({ boardId: z.string() }),
      handler: async ({ params }, ctx) => boards.deleteWhiteboard(ctx.caller, params),
    }),
    defineRoute({
      operationId: 'listWhiteboardMembers',
      method: 'GET',
      url: '/v1/collab/whiteboards/:boardId/members',
      summary: 'The board’s owner and members with their roles (anyone with a role on the board may read it)',
      auth: 'caller',
      params: listWhiteboardMembersParams,
      response: z.object({
        members: z.array(z.object({ accountId: z.string(), role: z.enum(WHITEBOARD_ROLES), addedAt: z.string() })),
      }),
      handler: async ({ params }, ctx) => ({ members: (await boards.listWhiteboardMembers(ctx.caller, params)).map(renderMember) }),
    }),
    defineRoute({
      operationId: 'exportWhiteboard',
      method: 'GET',
      url: '/v1/collab/whiteboards/:boardId/export',
      summary: 'The board’s current scene {elements, version} as its Yjs document holds it, unstored room edits included',
      auth: 'caller',
      params: exportWhiteboardParams,
      response: z.object({ boardId: z.string(), scene: sceneSchema }),
      handler: async ({ params }, ctx) => boards.exportWhiteboard(ctx.caller, params),
    }),
    defineRoute({
      operationId: 'setWhiteboardMember',
      method: 'PUT',
      url: '/v1/collab/whiteboards/:boardId/members/:accountId',
      summary: `Give an account a role on the board (${MEMBER_ROLES.join(', ')})`,
      auth: 'caller',
      params: setWhiteboardMemberParams,
      body: setWhiteboardMemberBody,
      response: itemSchema,
      handler: async ({ params, body }, ctx) => renderWhiteboard(await boards.setWhiteboardMember(ctx.caller, { ...params, role: body.role })),
    }),
    defineRoute({
      operationId: 'removeWhiteboardMember',
      method: 'DELETE',
      url: '/v1/collab/whiteboards/:boardId/members/:accountId',
      summary: 'Remove an account’s role on the board',
      auth: 'caller',
      params: removeWhiteboardMemberParams,
      response: itemSchema,
      handler: async ({ params }, ctx) => renderWhiteboard(await boards.removeWhiteboardMember(ctx.caller, params)),
    }),
    defineRoute({
      operationId: 'listWhiteboardVersions',
      method: 'GET',
      url: '/v1/collab/whiteboards/:boardId/versions',
      summary: `The board’s version snapshots, newest first: one at most every 5 minutes of editing, the last ${VERSIONS_KEPT} kept (anyone with a role on the board may read them)`,
      auth: 'caller',
      params: listWhiteboardVersionsParams,
      response: z.object({ versions: z.array(z.object({ versionId: z.string(), createdAt: z.string(), sizeBytes: z.number().int() })) }),
      handler: async ({ params }, ctx) => ({ versions: (await boards.listWhiteboardVersions(ctx.caller, params)).map(renderVersion) }),
    }),
    defineRoute({
      operationId: 'restoreWhiteboardVersion',
      method: 'POST',
      url: '/v1/collab/whiteboards/:boardId/versions/:versionId/restore',
      summary: 'Make the board’s content that of one of its versions, as a new edit every open room receives (EDITOR or higher)',
      auth: 'caller',
      params: restoreWhiteboardVersionParams,
      response: z.object({ boardId: z.string(), versionId: z.string(), restoredAt: z.string() }),
      handler: async ({ params }, ctx) => {
        const r = await boards.restoreWhiteboardVersion(ctx.caller, params);
        return { boardId: r.boardId, versionId: r.versionId, restoredAt: toRfc3339(r.restoredAt) };
      },
    }),
  ];
}
