import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { DeleteWhiteboardDocument, WhiteboardExportDocument, WhiteboardMembersDocument } from '../generated/graphql/graphql.ts';
import { api, signIn, type SignedIn } from '../helpers/auth.ts';
import { gql } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { BOARDS, createBoard, outcome, OpenRooms, type Room } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 24 item 5, what a whiteboard user expects: deleting a board (owner only; its rooms
 * close for everyone and its data goes), listing a board's members with their roles, and
 * exporting the current scene (the live room's document, unstored edits included), each
 * over /v1 and GraphQL, with @hocuspocus/provider as the room client.
 */
let server: RunningApp;
const rooms = new OpenRooms(() => server.url);
const open = rooms.open.bind(rooms);

beforeAll(async () => {
  server = await startTestApp();
});
afterEach(() => {
  rooms.destroyAll();
});
afterAll(async () => {
  await server?.close();
});

function expectProblem(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ status, code });
}

const ask = (who: SignedIn, query: string, variables: Record<string, unknown>) => api(server.url, 'POST', '/graphql', { query, variables }, who.auth);
const share = async (owner: SignedIn, boardId: string, who: SignedIn, role: string) =>
  expect((await api(server.url, 'PUT', `${BOARDS}/${boardId}/members/${who.rootAccountId}`, { role }, owner.auth)).status).toBe(200);
const elements = (room: Room) => room.doc.getArray<Y.Map<unknown>>('elements');
const storedRow = (boardId: string) => server.database.prisma.whiteboard.findUnique({ where: { boardId } });

describe('deleting a board', () => {
  it('is the owner’s alone: a member is 403, anyone else and any other spelling 404, with nothing deleted', async () => {
    const owner = await signIn(server.url);
    const editor = await signIn(server.url);
    const manager = await signIn(server.url);
    const stranger = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    await share(owner, board.boardId, editor, 'EDITOR');
    await share(owner, board.boardId, manager, 'MANAGER');
    const path = `${BOARDS}/${board.boardId}`;
    expectProblem(await api(server.url, 'DELETE', path, undefined, editor.auth), 403, 'WHITEBOARD_DELETE_DENIED');
    expectProblem(await api(server.url, 'DELETE', path, undefined, manager.auth), 403, 'WHITEBOARD_DELETE_DENIED');
    expectProblem(await api(server.url, 'DELETE', path, undefined, stranger.auth), 404, 'WHITEBOARD_NOT_FOUND');
    expectProblem(await api(server.url, 'DELETE', path.toUpperCase().replace('/V1/COLLAB/WHITEBOARDS', BOARDS), undefined, owner.auth), 404, 'WHITEBOARD_NOT_FOUND');
    const del = 'mutation($b: String!) { deleteWhiteboard(boardId: $b) { boardId } }';
    expect((await ask(manager, del, { b: board.boardId })).body.errors[0].extensions).toMatchObject({ code: 'WHITEBOARD_DELETE_DENIED', status: 403 });
    expect((await ask(stranger, del, { b: board.boardId })).body.errors[0].extensions).toMatchObject({ code: 'WHITEBOARD_NOT_FOUND', status: 404 });
    expect((await api(server.url, 'GET', path, undefined, owner.auth)).body.board).toMatchObject({ boardId: board.boardId, accessVersion: '3' });
    expect(await server.database.prisma.whiteboardAclEntry.count({ where: { whiteboard: { boardId: board.boardId } } })).toBe(2);
  });

  it('closes the room for everyone (BOARD_DELETED), removes row, members and content, and refuses later connections', async () => {
    const owner = await signIn(server.url);
    const editor = await signIn(server.url);
    const viewer = await signIn(server.url);
    const { board } = await createBoard(server.url, owner, { title: 'doomed', initialSnapshot: { elements: [{ id: 'a', type: 'rectangle' }], version: 1 } });
    const id = board.boardId as string;
    await share(owner, id, editor, 'EDITOR');
    await share(owner, id, viewer, 'VIEWER');
    const o = open(id, owner.token);
    const e = open(id, editor.token);
    const v = open(id, viewer.token);
    for (const room of [o, e, v]) expect(await outcome(room)).toBe('synced');
    elements(e).push([new Y.Map<unknown>([['id', 'b'], ['type', 'ellipse']])]);
    await pollUntil(() => elements(o).length === 2, 3000);

    const r = await api(server.url, 'DELETE', `${BOARDS}/${id}`, undefined, owner.auth);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ boardId: id });
    // Every connection, whatever its role, closes with the reason, and its socket too.
    await pollUntil(() => [o, e, v].every((room) => room.closes.length > 0 && room.socketCloses.length > 0), 1000);
    for (const room of [o, e, v]) {
      expect(room.closes).toEqual(['BOARD_DELETED']);
      expect(room.socketCloses[0]).toBe('4404 BOARD_DELETED');
    }
    // The room unloads (its last store finds no row and writes nothing); the data is gone.
    await pollUntil(() => server.app.collab.hocuspocus.getDocumentsCount() === 0, 5000);
    expect(await storedRow(id)).toBeNull();
    expect(await server.database.prisma.whiteboardAclEntry.count({ where: { principalAccount: { publicId: { in: [editor.rootAccountId, viewer.rootAccountId] } } } })).toBe(0);
    expect(await server.app.services.whiteboards.loadContent(id)).toBeUndefined();
    expectProblem(await api(server.url, 'GET', `${BOARDS}/${id}`, undefined, owner.auth), 404, 'WHITEBOARD_NOT_FOUND');
    expectProblem(await api(server.url, 'GET', `${BOARDS}/${id}/export`, undefined, owner.auth), 404, 'WHITEBOARD_NOT_FOUND');
    expectProblem(await api(server.url, 'DELETE', `${BOARDS}/${id}`, undefined, owner.auth), 404, 'WHITEBOARD_NOT_FOUND');
    expect((await api(server.url, 'GET', BOARDS, undefined, editor.auth)).body.boards).toEqual([]);
    const later = open(id, owner.token);
    expect(await outcome(later)).toBe('refused');
    expect(later.refusals).toEqual(['WHITEBOARD_NOT_FOUND']);
  });

  it('over GraphQL, the same: the owner deletes, the room closes, the board is gone', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const room = open(board.boardId, owner.token);
    expect(await outcome(room)).toBe('synced');
    const r = await gql(server.url, DeleteWhiteboardDocument, { boardId: board.boardId }, owner.auth);
    expect(r.body).toEqual({ data: { deleteWhiteboard: { boardId: board.boardId } } });
    await pollUntil(() => room.closes.length > 0, 1000);
    expect(room.closes).toEqual(['BOARD_DELETED']);
    expect(await storedRow(board.boardId)).toBeNull();
    const again = await ask(owner, 'query($b: String!) { viewer { whiteboard(boardId: $b) { board { boardId } } } }', { b: board.boardId });
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'WHITEBOARD_NOT_FOUND', status: 404 });
  });
});

describe('a board’s members', () => {
  it('are listed with their roles, owner first, to anyone with a role on the board, over /v1 and GraphQL', async () => {
    const owner = await signIn(server.url);
    const viewer = await signIn(server.url);
    const editor = await signIn(server.url);
    const stranger = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    await share(owner, board.boardId, viewer, 'VIEWER');
    await share(owner, board.boardId, editor, 'EDITOR');
    const path = `${BOARDS}/${board.boardId}/members`;
    const r = await api(server.url, 'GET', path, undefined, viewer.auth);
    expect(r.status).toBe(200);
    expect(r.body.members.map((m: { accountId: string; role: string }) => [m.accountId, m.role])).toEqual([
      [owner.rootAccountId, 'OWNER'],
      [viewer.rootAccountId, 'VIEWER'],
      [editor.rootAccountId, 'EDITOR'],
    ]);
    expect(r.body.members[0].addedAt).toBe(board.createdAt);
    const g = await gql(server.url, WhiteboardMembersDocument, { boardId: board.boardId }, editor.auth);
    expect(g.body.data!.viewer.whiteboard.board.members).toEqual(r.body.members);

    expectProblem(await api(server.url, 'GET', path, undefined, stranger.auth), 404, 'WHITEBOARD_NOT_FOUND');
    // A removed member no longer reads it; a role change shows at once.
    expect((await api(server.url, 'DELETE', `${path}/${viewer.rootAccountId}`, undefined, owner.auth)).status).toBe(200);
    expectProblem(await api(server.url, 'GET', path, undefined, viewer.auth), 404, 'WHITEBOARD_NOT_FOUND');
    await share(owner, board.boardId, editor, 'MANAGER');
    const after = await api(server.url, 'GET', path, undefined, owner.auth);
    expect(after.body.members.map((m: { role: string }) => m.role)).toEqual(['OWNER', 'MANAGER']);
    // Link access is a role on the board: such a visitor reads the list, and is not in it.
    await api(server.url, 'PATCH', `${BOARDS}/${board.boardId}`, { audience: 'AUTHENTICATED' }, owner.auth);
    expect((await api(server.url, 'GET', path, undefined, stranger.auth)).body.members).toHaveLength(2);
  });
});

describe('exporting a board', () => {
  it('gives the scene the Yjs document holds, live room edits not stored yet included, over /v1 and GraphQL', async () => {
    const owner = await signIn(server.url);
    const viewer = await signIn(server.url);
    const stranger = await signIn(server.url);
    const initialSnapshot = { elements: [{ id: 'a', type: 'rectangle', x: 1, points: [[0, 0], [1, 2]] }], version: 3 };
    const { board } = await createBoard(server.url, owner, { title: 'export', initialSnapshot });
    const id = board.boardId as string;
    await share(owner, id, viewer, 'VIEWER');
    const path = `${BOARDS}/${id}/export`;
    const viaGraphQL = async (who: SignedIn) => {
      const s = (await gql(server.url, WhiteboardExportDocument, { boardId: id }, who.auth)).body.data!.viewer.whiteboard.board.currentScene;
      return { elements: JSON.parse(s.elementsJson), version: s.version };
    };
    expect((await api(server.url, 'GET', path, undefined, viewer.auth)).body).toEqual({ boardId: id, scene: initialSnapshot });
    expect(await viaGraphQL(viewer)).toEqual(initialSnapshot);
    expectProblem(await api(server.url, 'GET', path, undefined, stranger.auth), 404, 'WHITEBOARD_NOT_FOUND');

    const room = open(id, owner.token);
    expect(await outcome(room)).toBe('synced');
    room.doc.transact(() => {
      elements(room).get(0)!.set('x', 42);
      elements(room).push([new Y.Map<unknown>([['id', 'b'], ['type', 'text'], ['text', 'héllo']])]);
    });
    const expected = {
      elements: [
        { id: 'a', type: 'rectangle', x: 42, points: [[0, 0], [1, 2]] },
        { id: 'b', type: 'text', text: 'héllo' },
      ],
      version: 3,
    };
    await pollUntil(async () => (await api(server.url, 'GET', path, undefined, viewer.auth)).body.scene.elements.length === 2, 3000);
    // The stored state is wiped under the open room: what export shows comes from the room.
    await server.database.prisma.whiteboard.update({ where: { boardId: id }, data: { yjsState: Buffer.alloc(0) } });
    expect((await api(server.url, 'GET', path, undefined, viewer.auth)).body.scene).toEqual(expected);
    expect(await viaGraphQL(viewer)).toEqual(expected);

    // Once the room is gone, export reads the stored state, which the last store filled again.
    room.destroy();
    await pollUntil(() => server.app.collab.hocuspocus.getDocumentsCount() === 0, 5000);
    expect((await api(server.url, 'GET', path, undefined, owner.auth)).body.scene).toEqual(expected);
    expect(await viaGraphQL(owner)).toEqual(expected);
  });

  it('over GraphQL costs 1000 a board: a page of 50 boards with their scenes is refused before any is read', async () => {
    const owner = await signIn(server.url);
    await createBoard(server.url, owner);
    const q = (first: number) => `{ viewer { whiteboards(first: ${first}) { edges { node { board { currentScene { version } } } } } } }`;
    const refused = await ask(owner, q(50), {});
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'QUERY_COST_EXCEEDED', status: 400 });
    expect(refused.body.data ?? null).toBeNull();
    const ok = await ask(owner, q(20), {});
    expect(ok.body.data.viewer.whiteboards.edges.map((e: any) => e.node.board.currentScene)).toEqual([{ version: 0 }]);
  });

  it('of a board whose stored state is unreadable is 503 BOARD_UNREADABLE, not a 500', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    await server.database.prisma.whiteboard.update({ where: { boardId: board.boardId }, data: { yjsState: Buffer.from([0xff, 0xff, 0xff]) } });
    expectProblem(await api(server.url, 'GET', `${BOARDS}/${board.boardId}/export`, undefined, owner.auth), 503, 'BOARD_UNREADABLE');
  });
});

describe('shared with me', () => {
  const listed = async (who: SignedIn) =>
    (await api(server.url, 'GET', BOARDS, undefined, who.auth)).body.boards.map((b: { board: { boardId: string }; access: { role: string } }) => [
      b.board.boardId,
      b.access.role,
    ]);
  const listedOverGraphQL = async (who: SignedIn) =>
    (await ask(who, '{ viewer { whiteboards(first: 50) { edges { node { board { boardId } } } } } }', {})).body.data.viewer.whiteboards.edges.map(
      (e: { node: { board: { boardId: string } } }) => e.node.board.boardId,
    );

  it('a board opened by link joins the caller’s list after the first visit (GET or room), while the link opens it', async () => {
    const owner = await signIn(server.url);
    const reader = await signIn(server.url);
    const joiner = await signIn(server.url);
    const { board: byGet } = await createBoard(server.url, owner, { title: 'by get', audience: 'AUTHENTICATED' });
    const { board: byRoom } = await createBoard(server.url, owner, { title: 'by room', audience: 'AUTHENTICATED', defaultRole: 'EDITOR' });
    expect(await listed(reader)).toEqual([]);
    expect(await listed(joiner)).toEqual([]);

    // Over GraphQL, the board query is the visit; the list then shows it on both transports.
    const seen = await ask(reader, 'query($b: String!) { viewer { whiteboard(boardId: $b) { access { role } } } }', { b: byGet.boardId });
    expect(seen.body.data.viewer.whiteboard.access.role).toBe('VIEWER');
    expect(await listed(reader)).toEqual([[byGet.boardId, 'VIEWER']]);
    expect(await listedOverGraphQL(reader)).toEqual([byGet.boardId]);
    // A second visit adds nothing.
    expect((await api(server.url, 'GET', `${BOARDS}/${byGet.boardId}`, undefined, reader.auth)).status).toBe(200);
    expect(await server.database.prisma.whiteboardVisit.count({ where: { whiteboard: { boardId: byGet.boardId } } })).toBe(1);

    const room = open(byRoom.boardId, joiner.token);
    expect(await outcome(room)).toBe('synced');
    expect(await listed(joiner)).toEqual([[byRoom.boardId, 'EDITOR']]);

    // The link closed (PRIVATE again): no role, not listed; members are never "visits".
    await api(server.url, 'PATCH', `${BOARDS}/${byGet.boardId}`, { audience: 'PRIVATE' }, owner.auth);
    expect(await listed(reader)).toEqual([]);
    await share(owner, byRoom.boardId, reader, 'VIEWER');
    expect((await api(server.url, 'GET', `${BOARDS}/${byRoom.boardId}`, undefined, reader.auth)).status).toBe(200);
    expect(await server.database.prisma.whiteboardVisit.count({ where: { whiteboard: { boardId: byRoom.boardId } } })).toBe(1);
    // A failed visit (no role) records nothing; deleting the board takes its visits along.
    const stranger = await signIn(server.url);
    expectProblem(await api(server.url, 'GET', `${BOARDS}/${byGet.boardId}`, undefined, stranger.auth), 404, 'WHITEBOARD_NOT_FOUND');
    expect(await listed(stranger)).toEqual([]);
    expect((await api(server.url, 'DELETE', `${BOARDS}/${byRoom.boardId}`, undefined, owner.auth)).status).toBe(200);
    expect(await server.database.prisma.whiteboardVisit.count({ where: { account: { publicId: joiner.rootAccountId } } })).toBe(0);
    expect(await listed(joiner)).toEqual([]);
  });
});
