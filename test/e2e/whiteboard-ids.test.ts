import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, liftLimits, signIn, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { BOARDS, createBoard, outcome, texts, OpenRooms } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 24, one identity per board: the canonical id (lower-case UUID with hyphens) is the
 * only spelling that reaches a board, over /v1, GraphQL and the live room. Any other is
 * the answer for a board that does not exist (404 / WHITEBOARD_NOT_FOUND), so a removed
 * member cannot keep a second room open under another spelling.
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

/** Every other way to write `id` that a client, a proxy or an attacker might send. */
function spellings(id: string): Record<string, string> {
  const hex = id.replace(/-/g, '');
  return {
    'upper case': id.toUpperCase(),
    'mixed case': id.replace(/[a-f]/, (c) => c.toUpperCase()),
    braces: `{${id}}`,
    'urn:uuid:': `urn:uuid:${id}`,
    'no hyphens': hex,
    'no hyphens, upper case': hex.toUpperCase(),
    'leading space': ` ${id}`,
    'trailing space': `${id} `,
    'trailing newline': `${id}\n`,
    'tab inside': id.replace('-', '\t-'),
    'hyphens moved': `${hex.slice(0, 4)}-${hex.slice(4, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    'extra hyphen': `${id}-`,
    'fullwidth digit': id.replace(/[0-9]/, (d) => String.fromCharCode(0xff10 + Number(d))),
    'zero-width space': `${id}\u200b`,
    'NUL after': `${id}\u0000`,
    'percent-encoded text': encodeURIComponent(id).replace(/-/g, '%2D'),
    'trailing slash': `${id}/`,
    'dot segment': `${id}/.`,
  };
}

const escapePath = (s: string) => [...s].map((c) => (/[0-9A-Za-z\-_.~:{}]/.test(c) ? c : encodeURIComponent(c))).join('');

describe('a board id is canonical or nothing', () => {
  let owner: SignedIn;
  let guest: SignedIn;
  let boardId: string;
  beforeAll(async () => {
    owner = await signIn(server.url);
    // Every refused spelling of a mutation is still charged (before the board is read).
    await liftLimits(server.url, owner.rootAccountId, ['ACCOUNT_ADMIN']);
    guest = await signIn(server.url);
    boardId = (await createBoard(server.url, owner, { title: 'one identity' })).board.boardId;
    expect(boardId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('over /v1: every other spelling is 404 on every route taking a board id, and changes nothing', async () => {
    for (const [name, spelled] of Object.entries(spellings(boardId))) {
      const path = `${BOARDS}/${escapePath(spelled)}`;
      const answers = [
        await api(server.url, 'GET', path, undefined, owner.auth),
        await api(server.url, 'PATCH', path, { title: 'renamed' }, owner.auth),
        await api(server.url, 'PUT', `${path}/members/${guest.rootAccountId}`, { role: 'EDITOR' }, owner.auth),
        await api(server.url, 'DELETE', `${path}/members/${guest.rootAccountId}`, undefined, owner.auth),
        await api(server.url, 'GET', `${path}/members`, undefined, owner.auth),
        await api(server.url, 'GET', `${path}/export`, undefined, owner.auth),
        await api(server.url, 'GET', `${path}/versions`, undefined, owner.auth),
        await api(server.url, 'POST', `${path}/versions/ffffffff-ffff-4fff-bfff-ffffffffffff/restore`, undefined, owner.auth),
        await api(server.url, 'DELETE', path, undefined, owner.auth),
      ];
      for (const r of answers) {
        expect({ name, status: r.status }).toEqual({ name, status: 404 });
        expect(r.headers.get('content-type')).toContain('application/problem+json');
      }
    }
    const board = await api(server.url, 'GET', `${BOARDS}/${boardId}`, undefined, owner.auth);
    expect(board.body.board).toMatchObject({ title: 'one identity', accessVersion: '1' });
  });

  it('over /v1: the canonical id percent-encoded is the canonical id (the path is decoded before it is read)', async () => {
    const encoded = [...boardId].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    const r = await api(server.url, 'GET', `${BOARDS}/${encoded}`, undefined, owner.auth);
    expect(r.status).toBe(200);
    expect(r.body.board.boardId).toBe(boardId);
  });

  it('over GraphQL: every other spelling is WHITEBOARD_NOT_FOUND for the board query and each mutation', async () => {
    const ask = (query: string, variables: Record<string, unknown>) => api(server.url, 'POST', '/graphql', { query, variables }, owner.auth);
    for (const [name, spelled] of Object.entries(spellings(boardId))) {
      const answers = [
        await ask('query($b: String!) { viewer { whiteboard(boardId: $b) { board { boardId } } } }', { b: spelled }),
        await ask('mutation($b: String!) { updateWhiteboard(boardId: $b, input: { title: "renamed" }) { board { boardId } } }', { b: spelled }),
        await ask('mutation($b: String!, $a: String!) { setWhiteboardMember(boardId: $b, accountId: $a, role: EDITOR) { board { boardId } } }', { b: spelled, a: guest.rootAccountId }),
        await ask('mutation($b: String!, $a: String!) { removeWhiteboardMember(boardId: $b, accountId: $a) { board { boardId } } }', { b: spelled, a: guest.rootAccountId }),
        await ask('mutation($b: String!) { deleteWhiteboard(boardId: $b) { boardId } }', { b: spelled }),
        await ask('query($b: String!) { viewer { whiteboardVersions(boardId: $b) { versionId } } }', { b: spelled }),
        await ask('mutation($b: String!) { restoreWhiteboardVersion(boardId: $b, versionId: "ffffffff-ffff-4fff-bfff-ffffffffffff") { versionId } }', { b: spelled }),
      ];
      for (const r of answers) expect({ name, code: r.body.errors?.[0]?.extensions?.code }).toEqual({ name, code: 'WHITEBOARD_NOT_FOUND' });
    }
    const r = await ask('query($b: String!) { viewer { whiteboard(boardId: $b) { board { title accessVersion } } } }', { b: boardId });
    expect(r.body.data.viewer.whiteboard.board).toEqual({ title: 'one identity', accessVersion: '1' });
  });

  it('a room under any other spelling is refused, even for the owner', async () => {
    for (const [name, spelled] of Object.entries(spellings(boardId))) {
      const room = open(spelled, owner.token);
      expect({ name, outcome: await outcome(room) }).toEqual({ name, outcome: 'refused' });
      expect(room.refusals).toEqual(['WHITEBOARD_NOT_FOUND']);
    }
    expect(server.app.collab.hocuspocus.getDocumentsCount()).toBe(0);
  });

  it('the upper-case scenario: a removed editor is cut off at once and no later edit of theirs is stored', async () => {
    const { board } = await createBoard(server.url, owner, { title: 'removal' });
    const id = board.boardId as string;
    expect((await api(server.url, 'PUT', `${BOARDS}/${id}/members/${guest.rootAccountId}`, { role: 'EDITOR' }, owner.auth)).status).toBe(200);
    const upper = open(id.toUpperCase(), guest.token);
    expect(await outcome(upper)).toBe('refused');
    const b = open(id, guest.token);
    const a = open(id, owner.token);
    expect(await outcome(b)).toBe('synced');
    expect(await outcome(a)).toBe('synced');
    texts(b).set('before', '1');
    await pollUntil(() => texts(a).has('before'), 3000);

    expect((await api(server.url, 'DELETE', `${BOARDS}/${id}/members/${guest.rootAccountId}`, undefined, owner.auth)).status).toBe(200);
    // The board's connection and the WebSocket under it (no other board shares it) close.
    await pollUntil(() => b.closes.length > 0 && b.socketCloses.length > 0, 1000);
    expect(b.closes).toEqual(['ACCESS_REVOKED']);
    expect(b.socketCloses[0]).toBe('4403 ACCESS_REVOKED');
    texts(b).set('after-removal', '1');
    texts(a).set('marker', '1');
    // The owner's later edit is stored; the removed editor's is not, in the room or in the row.
    await pollUntil(async () => {
      const row = await server.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId: id }, select: { yjsState: true } });
      return Buffer.from(row.yjsState ?? []).includes(Buffer.from('marker'));
    }, 15_000);
    const row = await server.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId: id }, select: { yjsState: true } });
    expect(Buffer.from(row.yjsState ?? []).includes(Buffer.from('after-removal'))).toBe(false);
    expect(texts(a).has('after-removal')).toBe(false);
    const fresh = open(id, owner.token);
    expect(await outcome(fresh)).toBe('synced');
    expect(texts(fresh).has('marker')).toBe(true);
    expect(texts(fresh).has('after-removal')).toBe(false);
  });
});
