import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboard, signed, signIn, type SignedIn } from '../helpers/auth.ts';
import {
  CreateWhiteboardDocument,
  RemoveWhiteboardMemberDocument,
  SetWhiteboardMemberDocument,
  UpdateWhiteboardDocument,
  WhiteboardDocument,
  WhiteboardsDocument,
} from '../generated/graphql/graphql.ts';
import { gql } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { BOARDS, createBoard, keyFor } from '../helpers/rooms.ts';

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

function expectProblem(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ status, code });
}

const get = (who: SignedIn, boardId: string) => api(server.url, 'GET', `${BOARDS}/${boardId}`, undefined, who.auth);
const patch = (who: SignedIn, boardId: string, body: unknown) => api(server.url, 'PATCH', `${BOARDS}/${boardId}`, body, who.auth);
const member = (who: SignedIn, boardId: string, accountId: string, role?: string) =>
  role === undefined
    ? api(server.url, 'DELETE', `${BOARDS}/${boardId}/members/${accountId}`, undefined, who.auth)
    : api(server.url, 'PUT', `${BOARDS}/${boardId}/members/${accountId}`, { role }, who.auth);

describe('whiteboards over /v1', () => {
  it('creates a board and renders {board, access} exactly as spec 2.13', async () => {
    const me = await signIn(server.url);
    const snapshot = { elements: [{ id: 'r1', type: 'rectangle', x: 1, y: 2 }], version: 3 };
    const made = await createBoard(server.url, me, { title: '  Q4 plan  ', initialSnapshot: snapshot });
    expect(made).toEqual({
      board: {
        boardId: expect.stringMatching(UUID),
        ownerAccountId: me.rootAccountId,
        title: 'Q4 plan',
        audience: 'PRIVATE',
        defaultRole: 'VIEWER',
        accessVersion: '1',
        initialSnapshot: snapshot,
        createdAt: expect.stringMatching(RFC3339),
        updatedAt: expect.stringMatching(RFC3339),
      },
      access: { role: 'OWNER', permissions: { canView: true, canEdit: true, canManage: true } },
    });
    expect((await get(me, made.board.boardId)).body).toEqual(made);
    expect((await api(server.url, 'GET', BOARDS, undefined, me.auth)).body).toEqual({ boards: [made], nextPageToken: '' });
  });

  it('holds titles to 1..200 characters and 400 UTF-8 bytes', async () => {
    const me = await signIn(server.url);
    expect((await api(server.url, 'POST', BOARDS, { title: 'a'.repeat(200) }, me.auth)).status).toBe(200);
    expect((await api(server.url, 'POST', BOARDS, { title: '€'.repeat(133) }, me.auth)).status).toBe(200);
    expectProblem(await api(server.url, 'POST', BOARDS, { title: 'a'.repeat(201) }, me.auth), 400, 'BAD_REQUEST');
    expectProblem(await api(server.url, 'POST', BOARDS, { title: '€'.repeat(134) }, me.auth), 400, 'BAD_REQUEST');
    expectProblem(await api(server.url, 'POST', BOARDS, { title: '   ' }, me.auth), 400, 'BAD_REQUEST');
    const board = (await createBoard(server.url, me)).board;
    expectProblem(await patch(me, board.boardId, { title: '😀'.repeat(101) }), 400, 'BAD_REQUEST');
    expect((await get(me, board.boardId)).body.board.title).toBe('plan');
  });

  it('rejects bad settings and snapshots with 400, changing nothing', async () => {
    const me = await signIn(server.url);
    expectProblem(await api(server.url, 'POST', BOARDS, { title: 't', audience: 'PUBLIC' }, me.auth), 400, 'BAD_REQUEST');
    expectProblem(await api(server.url, 'POST', BOARDS, { title: 't', defaultRole: 'MANAGER' }, me.auth), 400, 'BAD_REQUEST');
    const dup = { elements: [{ id: 'a' }, { id: 'a' }], version: 1 };
    expectProblem(await api(server.url, 'POST', BOARDS, { title: 't', initialSnapshot: dup }, me.auth), 400, 'BAD_REQUEST');
    expectProblem(await api(server.url, 'POST', BOARDS, { title: 't', initialSnapshot: { elements: [], version: -1 } }, me.auth), 400, 'BAD_REQUEST');
    expect((await api(server.url, 'GET', BOARDS, undefined, me.auth)).body.boards).toEqual([]);
  });

  it('answers 404 for another account’s board, and for ids that are not boards', async () => {
    const owner = await signIn(server.url);
    const other = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    expectProblem(await get(other, board.boardId), 404, 'WHITEBOARD_NOT_FOUND');
    expectProblem(await patch(other, board.boardId, { title: 'mine' }), 404, 'WHITEBOARD_NOT_FOUND');
    expectProblem(await member(other, board.boardId, other.rootAccountId, 'EDITOR'), 404, 'WHITEBOARD_NOT_FOUND');
    expectProblem(await get(other, 'not-a-uuid'), 404, 'WHITEBOARD_NOT_FOUND');
    expect((await api(server.url, 'GET', BOARDS, undefined, other.auth)).body.boards).toEqual([]);
  });

  it('resolves the highest applicable role, and only managers manage', async () => {
    const owner = await signIn(server.url);
    const guest = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const shared = await member(owner, board.boardId, guest.rootAccountId, 'VIEWER');
    expect(shared.body.board.accessVersion).toBe('2');
    expect((await get(guest, board.boardId)).body.access).toEqual({ role: 'VIEWER', permissions: { canView: true, canEdit: false, canManage: false } });
    expectProblem(await patch(guest, board.boardId, { title: 'x' }), 403, 'WHITEBOARD_MANAGE_DENIED');
    // The audience grants EDITOR to every signed-in account: more than the ACL's VIEWER.
    await patch(owner, board.boardId, { audience: 'AUTHENTICATED', defaultRole: 'EDITOR' });
    expect((await get(guest, board.boardId)).body.access.role).toBe('EDITOR');
    const stranger = await signIn(server.url);
    // Not listed to an account without an ACL entry until it opens the board ("shared with me").
    expect((await api(server.url, 'GET', BOARDS, undefined, stranger.auth)).body.boards).toEqual([]);
    expect((await get(stranger, board.boardId)).body.access.role).toBe('EDITOR');
    await member(owner, board.boardId, guest.rootAccountId, 'MANAGER');
    const managed = await get(guest, board.boardId);
    expect(managed.body.access).toEqual({ role: 'MANAGER', permissions: { canView: true, canEdit: true, canManage: true } });
    expect((await patch(guest, board.boardId, { title: 'renamed' })).body.board.title).toBe('renamed');
    expectProblem(await member(owner, board.boardId, owner.rootAccountId, 'VIEWER'), 400, 'BAD_REQUEST');
    expectProblem(await member(owner, board.boardId, guest.rootAccountId, 'OWNER'), 400, 'BAD_REQUEST');
    expectProblem(await member(owner, board.boardId, 'NoSuchAccount1', 'VIEWER'), 404, 'ACCOUNT_NOT_FOUND');
  });

  it('increments accessVersion on every change of audience, default role, members or archive state, and only then', async () => {
    const owner = await signIn(server.url);
    const guest = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const id = board.boardId;
    const version = async () => (await get(owner, id)).body.board.accessVersion;
    const steps: [() => Promise<unknown>, string][] = [
      [() => patch(owner, id, { title: 'new title' }), '1'],
      [() => patch(owner, id, { audience: 'AUTHENTICATED' }), '2'],
      [() => patch(owner, id, { audience: 'AUTHENTICATED' }), '2'],
      [() => patch(owner, id, { defaultRole: 'EDITOR' }), '3'],
      [() => member(owner, id, guest.rootAccountId, 'EDITOR'), '4'],
      [() => member(owner, id, guest.rootAccountId, 'EDITOR'), '4'],
      [() => member(owner, id, guest.rootAccountId, 'VIEWER'), '5'],
      [() => member(owner, id, guest.rootAccountId), '6'],
      [() => member(owner, id, guest.rootAccountId), '6'],
      [() => patch(owner, id, { archived: true }), '7'],
      [() => patch(owner, id, { archived: true }), '7'],
      [() => patch(owner, id, { archived: false }), '8'],
    ];
    for (const [step, expected] of steps) {
      await step();
      expect(await version()).toBe(expected);
    }
  });

  it('archives: hidden from the list unless includeArchived, read-only for everyone', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const archived = await patch(owner, board.boardId, { archived: true });
    expect(archived.body.board.archivedAt).toMatch(RFC3339);
    expect(archived.body.access.permissions).toEqual({ canView: true, canEdit: false, canManage: true });
    expect((await api(server.url, 'GET', BOARDS, undefined, owner.auth)).body.boards).toEqual([]);
    const all = await api(server.url, 'GET', `${BOARDS}?includeArchived=true`, undefined, owner.auth);
    expect(all.body.boards.map((b: any) => b.board.boardId)).toEqual([board.boardId]);
    const back = await patch(owner, board.boardId, { archived: false });
    expect(back.body.board.archivedAt).toBeUndefined();
  });

  it('lists most recently updated first, in pages whose tokens are bound to the caller and filter', async () => {
    const me = await signIn(server.url);
    const other = await signIn(server.url);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createBoard(server.url, me, { title: `b${i}` })).board.boardId);
    // Touching the oldest makes it the most recently updated.
    await patch(me, ids[0]!, { title: 'touched' });
    const expected = [ids[0], ids[4], ids[3], ids[2], ids[1]];
    const seen: string[] = [];
    let token = '';
    do {
      const r = await api(server.url, 'GET', `${BOARDS}?limit=2${token ? `&pageToken=${token}` : ''}`, undefined, me.auth);
      expect(r.status).toBe(200);
      expect(r.body.boards.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.boards.map((b: any) => b.board.boardId));
      token = r.body.nextPageToken;
      if (token) {
        expectProblem(await api(server.url, 'GET', `${BOARDS}?limit=2&pageToken=${token}`, undefined, other.auth), 400, 'BAD_REQUEST');
        expectProblem(await api(server.url, 'GET', `${BOARDS}?limit=2&includeArchived=true&pageToken=${token}`, undefined, me.auth), 400, 'BAD_REQUEST');
      }
    } while (token);
    expect(seen).toEqual(expected);
    expectProblem(await api(server.url, 'GET', `${BOARDS}?limit=501`, undefined, me.auth), 400, 'BAD_REQUEST');
    expect((await api(server.url, 'GET', `${BOARDS}?limit=500`, undefined, me.auth)).status).toBe(200);
  });

  it('API keys: reads need READ, writes need TRADE', async () => {
    const owner = await onboard(server.url);
    const reader = await keyFor(server.url, owner, ['READ']);
    const writer = await keyFor(server.url, owner, ['READ', 'TRADE']);
    const blind = await keyFor(server.url, owner, ['TRADE']);
    expectProblem(await signed(server.url, reader, 'POST', BOARDS, { title: 'k' }), 403, 'MISSING_PERMISSION');
    const made = await signed(server.url, writer, 'POST', BOARDS, { title: 'k' });
    expect(made.status).toBe(200);
    expect(made.body.board.ownerAccountId).toBe(owner.rootAccountId);
    const read = await signed(server.url, reader, 'GET', `${BOARDS}/${made.body.board.boardId}`);
    expect(read.body.access).toEqual({ role: 'OWNER', permissions: { canView: true, canEdit: false, canManage: false } });
    expectProblem(await signed(server.url, blind, 'GET', BOARDS), 403, 'MISSING_PERMISSION');
  });
});

describe('whiteboards over GraphQL: the same services', () => {
  it('creates, reads, lists, manages members and settings like /v1', async () => {
    const owner = await signIn(server.url);
    const guest = await signIn(server.url);
    const snapshot = { elements: [{ id: 'a', type: 'line' }], version: 2 };
    const made = await gql(
      server.url,
      CreateWhiteboardDocument,
      { input: { title: 'gql board', audience: 'PRIVATE', initialSnapshotJson: JSON.stringify(snapshot) } },
      owner.auth,
    );
    expect(made.body.errors).toBeUndefined();
    const item = made.body.data!.createWhiteboard;
    const rest = await get(owner, item.board.boardId);
    expect(item.board).toEqual({ ...rest.body.board, archivedAt: null, initialSnapshot: { elementsJson: JSON.stringify(snapshot.elements), version: 2 } });
    expect(item.access).toEqual(rest.body.access);

    const shared = await gql(server.url, SetWhiteboardMemberDocument, { boardId: item.board.boardId, accountId: guest.rootAccountId, role: 'EDITOR' }, owner.auth);
    expect(shared.body.data!.setWhiteboardMember.board.accessVersion).toBe('2');
    const seen = await gql(server.url, WhiteboardDocument, { boardId: item.board.boardId }, guest.auth);
    expect(seen.body.data!.viewer.whiteboard.access).toEqual({ role: 'EDITOR', permissions: { canView: true, canEdit: true, canManage: false } });
    const list = await gql(server.url, WhiteboardsDocument, { first: 10 }, guest.auth);
    expect(list.body.data!.viewer.whiteboards.edges.map((e) => e.node.board.boardId)).toEqual([item.board.boardId]);

    const denied = await gql(server.url, UpdateWhiteboardDocument, { boardId: item.board.boardId, input: { title: 'x' } }, guest.auth);
    expect(denied.body.errors?.[0]?.extensions).toMatchObject({ code: 'WHITEBOARD_MANAGE_DENIED', status: 403 });
    const archived = await gql(server.url, UpdateWhiteboardDocument, { boardId: item.board.boardId, input: { archived: true } }, owner.auth);
    expect(archived.body.data!.updateWhiteboard.board.archivedAt).toMatch(RFC3339);
    expect(archived.body.data!.updateWhiteboard.board.accessVersion).toBe('3');
    const removed = await gql(server.url, RemoveWhiteboardMemberDocument, { boardId: item.board.boardId, accountId: guest.rootAccountId }, owner.auth);
    expect(removed.body.data!.removeWhiteboardMember.board.accessVersion).toBe('4');
    const gone = await gql(server.url, WhiteboardDocument, { boardId: item.board.boardId }, guest.auth);
    expect(gone.body.errors?.[0]?.extensions).toMatchObject({ code: 'WHITEBOARD_NOT_FOUND', status: 404 });
    const badTitle = await gql(server.url, CreateWhiteboardDocument, { input: { title: 'é'.repeat(201) } }, owner.auth);
    expect(badTitle.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });
});

describe('one schema for both transports (issue 27)', () => {
  it('GraphQL refuses with the bounds and violations /v1 has: a board id past 64 characters is 400, not 404, and a 4,097-character title names the same rule', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner, { title: 'bounded' });
    const longId = `${board.boardId}${'0'.repeat(29)}`;
    const restRead = await get(owner, longId);
    expectProblem(restRead, 400, 'BAD_REQUEST');
    const graphRead = await gql(server.url, WhiteboardDocument, { boardId: longId }, owner.auth);
    expect(graphRead.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400, violations: restRead.body.violations });

    const title = 'x'.repeat(4097);
    const restPatch = await patch(owner, board.boardId, { title });
    expectProblem(restPatch, 400, 'BAD_REQUEST');
    const graphPatch = await gql(server.url, UpdateWhiteboardDocument, { boardId: board.boardId, input: { title } }, owner.auth);
    expect(graphPatch.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400, violations: restPatch.body.violations });
    expect(restPatch.body.violations).toEqual([expect.objectContaining({ fieldPath: 'title' })]);
    expect((await get(owner, board.boardId)).body.board).toMatchObject({ title: 'bounded', accessVersion: '1' });
  });
});
