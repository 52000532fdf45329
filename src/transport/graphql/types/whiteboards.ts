import { queryFromInfo } from '@pothos/plugin-prisma';
import { invalidArgument } from '../../../domain/errors.ts';
import { AUDIENCES, DEFAULT_ROLES, MEMBER_ROLES, WHITEBOARD_ROLES, type Audience, type DefaultRole, type MemberRole, type Permissions, type ResolvedAccess } from '../../../domain/whiteboard.ts';
import { createWhiteboardBody } from '../../../services/whiteboards/createWhiteboard.schema.ts';
import { deleteWhiteboardParams } from '../../../services/whiteboards/deleteWhiteboard.schema.ts';
import { getWhiteboardParams } from '../../../services/whiteboards/getWhiteboard.schema.ts';
import { boardNotFound, EMPTY_SCENE, WHITEBOARD_LIST_DEFAULT, type Scene, type WhiteboardItem, type WhiteboardMember } from '../../../services/whiteboards/index.ts';
import { removeWhiteboardMemberParams } from '../../../services/whiteboards/removeWhiteboardMember.schema.ts';
import { setWhiteboardMemberBody, setWhiteboardMemberParams } from '../../../services/whiteboards/setWhiteboardMember.schema.ts';
import { updateWhiteboardBody, updateWhiteboardParams } from '../../../services/whiteboards/updateWhiteboard.schema.ts';
import type { Whiteboard } from '../../../generated/prisma/client.ts';
import { builder } from '../builder.ts';
import { callerOf, connectionFromPage } from '../connections.ts';
import { parseArgs } from '../validate.ts';
import { ViewerRef } from './viewer.ts';

/**
 * Whiteboards over GraphQL: the same service calls as /v1 (routes/whiteboards.ts), the same
 * field names. Scene elements are free-form objects and GraphQL has no type for those, so
 * they travel as JSON text (`elementsJson`, `initialSnapshotJson`).
 */

const Audience = builder.enumType('WhiteboardAudience', { values: AUDIENCES });
const DefaultRole = builder.enumType('WhiteboardDefaultRole', { values: DEFAULT_ROLES });
const Role = builder.enumType('WhiteboardRole', { values: WHITEBOARD_ROLES });
const MemberRole = builder.enumType('WhiteboardMemberRole', { values: MEMBER_ROLES });

const SceneRef = builder.objectRef<Scene>('WhiteboardScene').implement({
  description: 'An Excalidraw-style scene',
  fields: (t) => ({
    elementsJson: t.string({ description: 'The elements array as JSON text', resolve: (s) => JSON.stringify(s.elements) }),
    version: t.exposeInt('version'),
  }),
});

const MemberRef = builder.objectRef<WhiteboardMember>('WhiteboardMember').implement({
  description: 'The owner, or an account holding a role on the board',
  fields: (t) => ({
    accountId: t.exposeString('accountId'),
    role: t.field({ type: Role, resolve: (m) => m.role }),
    addedAt: t.expose('addedAt', { type: 'DateTime' }),
  }),
});

const Deleted = builder.objectRef<{ boardId: string }>('WhiteboardDeleted').implement({
  fields: (t) => ({ boardId: t.exposeString('boardId') }),
});

/**
 * A board is its Prisma row: a page of boards reads the relations its selection asks for
 * (the owner's id, the members) with the page, one statement per relation, instead of one
 * query per board.
 */
const Board = builder.prismaObject('Whiteboard', {
  description: 'A collaborative whiteboard (spec 2.13); its live room is the WebSocket /collab, document name = boardId',
  fields: (t) => ({
    boardId: t.exposeString('boardId'),
    ownerAccountId: t.string({ select: { ownerAccount: { select: { publicId: true } } }, resolve: (b) => b.ownerAccount.publicId }),
    title: t.exposeString('title'),
    audience: t.field({ type: Audience, resolve: (b) => b.audience as Audience }),
    defaultRole: t.field({ type: DefaultRole, resolve: (b) => b.defaultRole as DefaultRole }),
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
        ...b.aclEntries.map((e) => ({ accountId: e.principalAccount.publicId, role: e.role as MemberRole, addedAt: e.createdAt })),
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

const PermissionsRef = builder.objectRef<Permissions>('WhiteboardPermissions').implement({
  fields: (t) => ({
    canView: t.exposeBoolean('canView'),
    canEdit: t.exposeBoolean('canEdit'),
    canManage: t.exposeBoolean('canManage'),
  }),
});

const Access = builder.objectRef<ResolvedAccess>('WhiteboardAccess').implement({
  description: "The caller's highest resolved role on a board, and what it allows",
  fields: (t) => ({
    role: t.field({ type: Role, resolve: (a) => a.role }),
    permissions: t.field({ type: PermissionsRef, resolve: (a) => a.permissions }),
  }),
});

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
  deleteWhiteboard: t.field({
    type: Deleted,
    description: 'Deletes the board, its members and its content (owner only); its open rooms close (BOARD_DELETED)',
    args: { boardId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.whiteboards.deleteWhiteboard(callerOf(ctx), parseArgs(deleteWhiteboardParams, args)),
  }),
  removeWhiteboardMember: t.field({
    type: Item,
    args: { boardId: t.arg.string({ required: true }), accountId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.whiteboards.removeWhiteboardMember(callerOf(ctx), parseArgs(removeWhiteboardMemberParams, args)),
  }),
}));
