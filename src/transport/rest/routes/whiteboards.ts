import { MEMBER_ROLES } from '../../../domain/whiteboard.ts';
import { presentWhiteboard, presentWhiteboardDeleted, whiteboardDeletedSchema, whiteboardSchema, whiteboardsSchema } from '../../../presenters/whiteboard.ts';
import { presentWhiteboardExport, whiteboardExportSchema } from '../../../presenters/whiteboardExport.ts';
import { presentWhiteboardMembers, whiteboardMembersSchema } from '../../../presenters/whiteboardMember.ts';
import { presentWhiteboardRestored, presentWhiteboardVersions, whiteboardRestoredSchema, whiteboardVersionsSchema } from '../../../presenters/whiteboardVersion.ts';
import type { Services } from '../../../services/index.ts';
import { createWhiteboardBody } from '../../../services/whiteboards/createWhiteboard.schema.ts';
import { deleteWhiteboardParams } from '../../../services/whiteboards/deleteWhiteboard.schema.ts';
import { exportWhiteboardParams } from '../../../services/whiteboards/exportWhiteboard.schema.ts';
import { getWhiteboardParams } from '../../../services/whiteboards/getWhiteboard.schema.ts';
import { VERSIONS_KEPT } from '../../../services/whiteboards/index.ts';
import { listWhiteboardMembersParams } from '../../../services/whiteboards/listWhiteboardMembers.schema.ts';
import { listWhiteboardsQuery } from '../../../services/whiteboards/listWhiteboards.schema.ts';
import { listWhiteboardVersionsParams } from '../../../services/whiteboards/listWhiteboardVersions.schema.ts';
import { removeWhiteboardMemberParams } from '../../../services/whiteboards/removeWhiteboardMember.schema.ts';
import { restoreWhiteboardVersionParams } from '../../../services/whiteboards/restoreWhiteboardVersion.schema.ts';
import { setWhiteboardMemberBody, setWhiteboardMemberParams } from '../../../services/whiteboards/setWhiteboardMember.schema.ts';
import { updateWhiteboardBody, updateWhiteboardParams } from '../../../services/whiteboards/updateWhiteboard.schema.ts';
import { defineRoute } from '../route.ts';

/**
 * Collaboration (spec 2.13, 4.8). The list is exactly 4.8; create, get, settings and
 * members are the routes issue 12 fixed for clients (docs/api-decisions.md, "Whiteboards").
 * The live room of a board is the WebSocket at /collab (src/transport/collab).
 */

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
      response: whiteboardsSchema,
      handler: async ({ query }, ctx) => {
        const r = await boards.listWhiteboards(ctx.caller, query);
        return { boards: r.boards.map(presentWhiteboard), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'createWhiteboard',
      method: 'POST',
      url: '/v1/collab/whiteboards',
      summary: 'Create a whiteboard owned by the caller',
      auth: 'caller',
      body: createWhiteboardBody,
      response: whiteboardSchema,
      handler: async ({ body }, ctx) => presentWhiteboard(await boards.createWhiteboard(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'getWhiteboard',
      method: 'GET',
      url: '/v1/collab/whiteboards/:boardId',
      summary: 'Get one whiteboard and the caller’s access',
      auth: 'caller',
      params: getWhiteboardParams,
      response: whiteboardSchema,
      handler: async ({ params }, ctx) => presentWhiteboard(await boards.getWhiteboard(ctx.caller, params)),
    }),
    defineRoute({
      operationId: 'updateWhiteboard',
      method: 'PATCH',
      url: '/v1/collab/whiteboards/:boardId',
      summary: 'Change a whiteboard’s title, audience, default role or archive state',
      auth: 'caller',
      params: updateWhiteboardParams,
      body: updateWhiteboardBody,
      response: whiteboardSchema,
      handler: async ({ params, body }, ctx) => presentWhiteboard(await boards.updateWhiteboard(ctx.caller, { ...body, ...params })),
    }),
    defineRoute({
      operationId: 'deleteWhiteboard',
      method: 'DELETE',
      url: '/v1/collab/whiteboards/:boardId',
      summary: 'Delete a whiteboard, its members and its content (owner only); its open rooms close (BOARD_DELETED)',
      auth: 'caller',
      params: deleteWhiteboardParams,
      response: whiteboardDeletedSchema,
      handler: async ({ params }, ctx) => presentWhiteboardDeleted(await boards.deleteWhiteboard(ctx.caller, params)),
    }),
    defineRoute({
      operationId: 'listWhiteboardMembers',
      method: 'GET',
      url: '/v1/collab/whiteboards/:boardId/members',
      summary: 'The board’s owner and members with their roles (anyone with a role on the board may read it)',
      auth: 'caller',
      params: listWhiteboardMembersParams,
      response: whiteboardMembersSchema,
      handler: async ({ params }, ctx) => presentWhiteboardMembers(await boards.listWhiteboardMembers(ctx.caller, params)),
    }),
    defineRoute({
      operationId: 'exportWhiteboard',
      method: 'GET',
      url: '/v1/collab/whiteboards/:boardId/export',
      summary: 'The board’s current scene {elements, version} as its Yjs document holds it, unstored room edits included',
      auth: 'caller',
      params: exportWhiteboardParams,
      response: whiteboardExportSchema,
      handler: async ({ params }, ctx) => presentWhiteboardExport(await boards.exportWhiteboard(ctx.caller, params)),
    }),
    defineRoute({
      operationId: 'setWhiteboardMember',
      method: 'PUT',
      url: '/v1/collab/whiteboards/:boardId/members/:accountId',
      summary: `Give an account a role on the board (${MEMBER_ROLES.join(', ')})`,
      auth: 'caller',
      params: setWhiteboardMemberParams,
      body: setWhiteboardMemberBody,
      response: whiteboardSchema,
      handler: async ({ params, body }, ctx) => presentWhiteboard(await boards.setWhiteboardMember(ctx.caller, { ...params, role: body.role })),
    }),
    defineRoute({
      operationId: 'removeWhiteboardMember',
      method: 'DELETE',
      url: '/v1/collab/whiteboards/:boardId/members/:accountId',
      summary: 'Remove an account’s role on the board',
      auth: 'caller',
      params: removeWhiteboardMemberParams,
      response: whiteboardSchema,
      handler: async ({ params }, ctx) => presentWhiteboard(await boards.removeWhiteboardMember(ctx.caller, params)),
    }),
    defineRoute({
      operationId: 'listWhiteboardVersions',
      method: 'GET',
      url: '/v1/collab/whiteboards/:boardId/versions',
      summary: `The board’s version snapshots, newest first: one at most every 5 minutes of editing, the last ${VERSIONS_KEPT} kept (anyone with a role on the board may read them)`,
      auth: 'caller',
      params: listWhiteboardVersionsParams,
      response: whiteboardVersionsSchema,
      handler: async ({ params }, ctx) => presentWhiteboardVersions(await boards.listWhiteboardVersions(ctx.caller, params)),
    }),
    defineRoute({
      operationId: 'restoreWhiteboardVersion',
      method: 'POST',
      url: '/v1/collab/whiteboards/:boardId/versions/:versionId/restore',
      summary: 'Make the board’s content that of one of its versions, as a new edit every open room receives (EDITOR or higher)',
      auth: 'caller',
      params: restoreWhiteboardVersionParams,
      response: whiteboardRestoredSchema,
      handler: async ({ params }, ctx) => presentWhiteboardRestored(await boards.restoreWhiteboardVersion(ctx.caller, params)),
    }),
  ];
}
