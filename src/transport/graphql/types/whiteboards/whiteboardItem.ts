import { queryFromInfo } from '@pothos/plugin-prisma';
import { invalidArgument } from '../../../../domain/errors.ts';
import type { Whiteboard } from '../../../../generated/prisma/client.ts';
import { createWhiteboardBody } from '../../../../services/whiteboards/createWhiteboard.schema.ts';
import { getWhiteboardParams } from '../../../../services/whiteboards/getWhiteboard.schema.ts';
import { boardNotFound, WHITEBOARD_LIST_DEFAULT, type WhiteboardItem } from '../../../../services/whiteboards/index.ts';
import { removeWhiteboardMemberParams } from '../../../../services/whiteboards/removeWhiteboardMember.schema.ts';
import { setWhiteboardMemberBody, setWhiteboardMemberParams } from '../../../../services/whiteboards/setWhiteboardMember.schema.ts';
import { updateWhiteboardBody, updateWhiteboardParams } from '../../../../services/whiteboards/updateWhiteboard.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf, connectionFromPage } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { Audience, DefaultRole, MemberRole } from './enums.ts';
import { Board } from './whiteboard.ts';
import { Access } from './whiteboardAccess.ts';

/**
 * Whiteboards over GraphQL: the same service calls as /v1 (routes/whiteboards.ts), the same
 * field names.
 */

/** A listed item carries its row, read with the page; one a mutation or a single read answers is read here by its id. */
const Item = builder.objectRef<WhiteboardItem & { row?: Whiteboard }>('WhiteboardItem').implement({
  fields: (t) => ({
    board: t.prismaField({
      type: Board,
      resolve: async (query, i, _args, ctx) => {
        if (i.row) return i.row;
        // Deleted since the service answered it: the board's own 404, as a read would give.
        const row = await ctx.db.whiteboard.findUnique({ ...query, where: { boardId: i.board.boardId } });
        if (!row) throw boardNotFound();
        return row;
      },
    }),
    access: t.field({ type: Access, resolve: (i) => i.access }),
  }),
});

builder.objectFields(ViewerRef, (t) => ({
  whiteboards: t.connection(
    {
      type: Item,
      description: 'Boards the caller owns or is a member of, most recently updated first',
      args: { includeArchived: t.arg.boolean() },
      resolve: (caller, args, ctx, info) =>
        connectionFromPage(args, WHITEBOARD_LIST_DEFAULT, async (page) => {
          const query = queryFromInfo({ context: ctx, info, typeName: 'Whiteboard', path: ['edges', 'node', 'board'] });
          const r = await ctx.services.whiteboards.listWhiteboards(
            caller,
            { ...page, ...(args.includeArchived != null ? { includeArchived: args.includeArchived } : {}) },
            'include' in query ? query.include : {},
          );
          return { items: r.boards, nextPageToken: r.nextPageToken };
        }),
    },
    { name: 'WhiteboardItemConnection' },
    { name: 'WhiteboardItemEdge' },
  ),
  whiteboard: t.field({
    type: Item,
    args: { boardId: t.arg.string({ required: true }) },
    resolve: (caller, args, ctx) => ctx.services.whiteboards.getWhiteboard(caller, parseArgs(getWhiteboardParams, args)),
  }),
}));

const CreateInput = builder.inputType('CreateWhiteboardInput', {
  fields: (t) => ({
    title: t.string({ required: true }),
    audience: t.field({ type: Audience, description: 'PRIVATE when omitted' }),
    defaultRole: t.field({ type: DefaultRole, description: 'VIEWER when omitted' }),
    initialSnapshotJson: t.string({ description: 'The initial scene {elements, version} as JSON text' }),
  }),
});

const UpdateInput = builder.inputType('UpdateWhiteboardInput', {
  fields: (t) => ({
    title: t.string(),
    audience: t.field({ type: Audience }),
    defaultRole: t.field({ type: DefaultRole }),
    archived: t.boolean(),
  }),
});

function parseScene(json: string | null | undefined): unknown {
  if (json == null) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw invalidArgument('initialSnapshotJson', 'is not JSON', 'json');
  }
}

builder.mutationFields((t) => ({
  createWhiteboard: t.field({
    type: Item,
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_root, { input }, ctx) => {
      const { initialSnapshotJson, ...rest } = input;
      // The scene goes to the service as parsed: the wire form would drop its elements' null fields.
      const initialSnapshot = parseScene(initialSnapshotJson);
      return ctx.services.whiteboards.createWhiteboard(callerOf(ctx), {
        ...parseArgs(createWhiteboardBody, rest),
        ...(initialSnapshot !== undefined ? { initialSnapshot } : {}),
      });
    },
  }),
  updateWhiteboard: t.field({
    type: Item,
    description: 'Title, audience, default role, archive state (needs canManage)',
    args: { boardId: t.arg.string({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
    resolve: (_root, { boardId, input }, ctx) =>
      ctx.services.whiteboards.updateWhiteboard(callerOf(ctx), { ...parseArgs(updateWhiteboardParams, { boardId }), ...parseArgs(updateWhiteboardBody, input) }),
  }),
  setWhiteboardMember: t.field({
    type: Item,
    args: {
      boardId: t.arg.string({ required: true }),
      accountId: t.arg.string({ required: true }),
      role: t.arg({ type: MemberRole, required: true }),
    },
    resolve: (_root, { role, ...params }, ctx) =>
      ctx.services.whiteboards.setWhiteboardMember(callerOf(ctx), { ...parseArgs(setWhiteboardMemberParams, params), ...parseArgs(setWhiteboardMemberBody, { role }) }),
  }),
  removeWhiteboardMember: t.field({
    type: Item,
    args: { boardId: t.arg.string({ required: true }), accountId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.whiteboards.removeWhiteboardMember(callerOf(ctx), parseArgs(removeWhiteboardMemberParams, args)),
  }),
}));
