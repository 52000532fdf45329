import { Document } from '@hocuspocus/server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { yjsToScene } from '../../src/services/whiteboards/index.ts';
import { api, onboard, signIn, type SignedIn } from '../helpers/auth.ts';
import { openDatabase, type Database } from '../../src/infra/database.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { dropSchema, startTestApp, testDatabase, testStore, type RunningApp } from '../helpers/infra.ts';
import { apiKeyRoomToken, BOARDS, createBoard, keyFor, outcome, texts, OpenRooms, type Room } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';

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

async function share(owner: SignedIn, boardId: string, who: SignedIn, role: string | undefined) {
  const path = `${BOARDS}/${boardId}/members/${who.rootAccountId}`;
  const r = role ? await api(server.url, 'PUT', path, { role }, owner.auth) : await api(server.url, 'DELETE', path, undefined, owner.auth);
  if (r.status !== 200) throw new Error(`share: ${r.status} ${JSON.stringify(r.body)}`);
}

const has = (room: Room, key: string, value?: string) => (value === undefined ? texts(room).has(key) : texts(room).get(key) === value);

async function storedDoc(app: RunningApp, boardId: string): Promise<Y.Doc> {
  const row = await app.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId }, select: { yjsState: true } });
  const doc = new Y.Doc();
  if (row.yjsState) Y.applyUpdate(doc, row.yjsState);
  return doc;
}

describe('whiteboard rooms at /collab', () => {
  it('two editors converge; the initial snapshot seeds the Y.Doc', async () => {
    const owner = await signIn(server.url);
    const editor = await signIn(server.url);
    const snapshot = { elements: [{ id: 'e1', type: 'ellipse', x: 10 }, { id: 't1', type: 'text', text: 'hi' }], version: 7 };
    const { board } = await createBoard(server.url, owner, { title: 'live', initialSnapshot: snapshot });
    await share(owner, board.boardId, editor, 'EDITOR');
    const a = open(board.boardId, owner.token);
    const b = open(board.boardId, editor.token);
    expect(await outcome(a)).toBe('synced');
    expect(await outcome(b)).toBe('synced');
    expect(yjsToScene(a.doc)).toEqual(snapshot);
    expect(a.provider.authorizedScope).toBe('read-write');
    texts(a).set('from-a', 'A');
    texts(b).set('from-b', 'B');
    await pollUntil(() => has(a, 'from-b') && has(b, 'from-a'), 3000);
    expect(texts(a).toJSON()).toEqual({ 'from-a': 'A', 'from-b': 'B' });
    expect(texts(b).toJSON()).toEqual(texts(a).toJSON());
    // Field-level merge inside one element: both changes survive.
    const [ea, eb] = [a, b].map((r) => r.doc.getArray<Y.Map<unknown>>('elements').get(0));
    ea!.set('x', 11);
    eb!.set('strokeColor', 'red');
    await pollUntil(() => ea!.get('strokeColor') === 'red' && eb!.get('x') === 11, 3000);
    expect(ea!.toJSON()).toEqual({ id: 'e1', type: 'ellipse', x: 11, strokeColor: 'red' });
  });

  it('refuses connections without credentials or without a role, with a reason', async () => {
    const owner = await signIn(server.url);
    const stranger = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const none = open(board.boardId, '');
    const bad = open(board.boardId, 'st_not-a-session');
    const foreign = open(board.boardId, stranger.token);
    const missing = open('00000000-0000-4000-8000-000000000000', owner.token);
    for (const r of [none, bad, foreign, missing]) expect(await outcome(r)).toBe('refused');
    expect([none.refusals[0], bad.refusals[0], foreign.refusals[0], missing.refusals[0]]).toEqual([
      'UNAUTHENTICATED',
      'INVALID_SESSION',
      'WHITEBOARD_NOT_FOUND',
      'WHITEBOARD_NOT_FOUND',
    ]);
  });

  it("a VIEWER's edits never reach the others nor the stored board", async () => {
    const owner = await signIn(server.url);
    const viewer = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    await share(owner, board.boardId, viewer, 'VIEWER');
    const a = open(board.boardId, owner.token);
    const v = open(board.boardId, viewer.token);
    expect(await outcome(a)).toBe('synced');
    expect(await outcome(v)).toBe('synced');
    expect(v.provider.authorizedScope).toBe('readonly');
    texts(v).set('viewer', 'should not spread');
    texts(a).set('owner', 'O');
    // The viewer still receives: the owner's later edit arrives, the viewer's never does.
    await pollUntil(() => has(v, 'owner'), 3000);
    await new Promise((r) => setTimeout(r, 300));
    expect(has(v, 'owner', 'O')).toBe(true);
    expect(has(a, 'viewer')).toBe(false);
    const watcher = open(board.boardId, owner.token);
    expect(await outcome(watcher)).toBe('synced');
    expect(texts(watcher).toJSON()).toEqual({ owner: 'O' });
  });

  it('API-key tokens: signed like a request over GET /collab/<boardId>, once; a READ key is read-only', async () => {
    const owner = await onboard(server.url);
    const writer = await keyFor(server.url, owner, ['READ', 'TRADE']);
    const reader = await keyFor(server.url, owner, ['READ']);
    const { board } = await createBoard(server.url, owner);
    const w = open(board.boardId, () => apiKeyRoomToken(writer, board.boardId));
    const r = open(board.boardId, () => apiKeyRoomToken(reader, board.boardId));
    expect(await outcome(w)).toBe('synced');
    expect(await outcome(r)).toBe('synced');
    expect(w.provider.authorizedScope).toBe('read-write');
    expect(r.provider.authorizedScope).toBe('readonly');
    const token = apiKeyRoomToken(writer, board.boardId);
    expect(await outcome(open(board.boardId, token))).toBe('synced');
    const replay = open(board.boardId, token);
    expect(await outcome(replay)).toBe('refused');
    expect(replay.refusals[0]).toBe('REPLAYED_REQUEST');
    const other = await createBoard(server.url, owner);
    const wrongBoard = open(other.board.boardId, apiKeyRoomToken(writer, board.boardId));
    expect(await outcome(wrongBoard)).toBe('refused');
    expect(wrongBoard.refusals[0]).toBe('INVALID_SIGNATURE');
  });

  it('access changes act live: a downgrade makes the connection read-only, a revocation closes it within a second', async () => {
    const owner = await signIn(server.url);
    const guest = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    await share(owner, board.boardId, guest, 'EDITOR');
    const a = open(board.boardId, owner.token);
    const g = open(board.boardId, guest.token);
    expect(await outcome(a)).toBe('synced');
    expect(await outcome(g)).toBe('synced');
    texts(g).set('before', '1');
    await pollUntil(() => has(a, 'before'), 3000);
    expect(has(a, 'before')).toBe(true);

    await share(owner, board.boardId, guest, 'VIEWER');
    await new Promise((r) => setTimeout(r, 500));
    texts(g).set('after-downgrade', '1');
    texts(a).set('marker', '1');
    await pollUntil(() => has(g, 'marker'), 3000);
    await new Promise((r) => setTimeout(r, 300));
    expect(has(g, 'marker')).toBe(true);
    expect(has(a, 'after-downgrade')).toBe(false);

    await share(owner, board.boardId, guest, undefined);
    await pollUntil(() => g.closes.length > 0, 1000);
    expect(g.closes).toEqual(['ACCESS_REVOKED']);
    texts(g).set('after-revoke', '1');
    await new Promise((r) => setTimeout(r, 300));
    expect(has(a, 'after-revoke')).toBe(false);
    expect(await outcome(open(board.boardId, guest.token))).toBe('refused');
  });

  it('a logout closes the session\'s open room connections at once (pushed, not polled)', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const a = open(board.boardId, owner.token);
    expect(await outcome(a)).toBe('synced');
    expect((await api(server.url, 'POST', '/v1/auth/logout', {}, owner.auth)).status).toBe(200);
    // The old 5 s recheck could not pass this bound; the push closes it in milliseconds.
    await pollUntil(() => a.closes.length > 0, 2500);
    expect(a.closes).toEqual(['CREDENTIALS_REVOKED']);
  });

  it('a revoked key\'s room closes at once, and nothing it sends after the revocation is applied', async () => {
    const owner = await onboard(server.url);
    const key = await keyFor(server.url, owner, ['READ', 'TRADE']);
    const { board } = await createBoard(server.url, owner);
    const k = open(board.boardId, () => apiKeyRoomToken(key, board.boardId));
    const watcher = open(board.boardId, owner.token);
    expect(await outcome(k)).toBe('synced');
    expect(await outcome(watcher)).toBe('synced');
    texts(k).set('before', '1');
    await pollUntil(() => has(watcher, 'before'), 3000);
    expect((await api(server.url, 'DELETE', `/v1/auth/api-keys/${key.keyId}`, undefined, owner.auth)).status).toBe(200);
    texts(k).set('after-revoke', '1');
    await pollUntil(() => k.closes.length > 0, 2500);
    expect(k.closes).toEqual(['CREDENTIALS_REVOKED']);
    texts(watcher).set('marker', '1');
    await new Promise((r) => setTimeout(r, 300));
    expect(has(watcher, 'before')).toBe(true);
    expect(has(watcher, 'after-revoke')).toBe(false);
  });

  it('a key switched to a policy without TRADE turns read-only at once: its next edit is not applied', async () => {
    const owner = await onboard(server.url);
    const key = await keyFor(server.url, owner, ['READ', 'TRADE']);
    const readOnly = await api(server.url, 'POST', '/v1/auth/api-policies', { name: 'read', permissions: ['READ'] }, owner.auth);
    const { board } = await createBoard(server.url, owner);
    const k = open(board.boardId, () => apiKeyRoomToken(key, board.boardId));
    const watcher = open(board.boardId, owner.token);
    expect(await outcome(k)).toBe('synced');
    expect(await outcome(watcher)).toBe('synced');
    expect(k.provider.authorizedScope).toBe('read-write');
    texts(k).set('before', '1');
    await pollUntil(() => has(watcher, 'before'), 3000);
    const patched = await api(server.url, 'PATCH', `/v1/auth/api-keys/${key.keyId}`, { expectedRevision: '1', policyId: readOnly.body.policy.policyId }, owner.auth);
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    texts(k).set('after-downgrade', '1');
    texts(watcher).set('marker', '1');
    // The key's connection stays open and keeps receiving; its edit never reaches the room.
    await pollUntil(() => has(k, 'marker'), 3000);
    await new Promise((r) => setTimeout(r, 300));
    expect(has(k, 'marker')).toBe(true);
    expect(k.closes).toEqual([]);
    expect(has(watcher, 'after-downgrade')).toBe(false);
  });

  it('stores edits after the debounce, and a restart keeps the document', async () => {
    const first = await testDatabase();
    const store = await testStore();
    let app: RunningApp | undefined = await startTestApp({ database: first, store });
    let second: Database | undefined;
    try {
      const owner = await signIn(app.url);
      const { board } = await api(app.url, 'POST', BOARDS, { title: 'kept' }, owner.auth).then((r) => r.body);
      const a = open(board.boardId, owner.token, app.url);
      expect(await outcome(a)).toBe('synced');
      texts(a).set('debounced', 'yes');
      const stored = async (key: string) => texts({ doc: await storedDoc(app!, board.boardId) } as Room).has(key);
      await pollUntil(() => stored('debounced'), 6000);
      expect(await stored('debounced')).toBe(true);
      // An edit still inside the debounce window is stored by the graceful shutdown, with
      // the client connected (it is told not to come back).
      texts(a).set('at-shutdown', 'yes');
      await pollUntil(() => app!.app.collab.hocuspocus.debouncer.isDebounced(`onStoreDocument-${board.boardId}`), 1000);
      expect(await stored('at-shutdown')).toBe(false);
      a.provider.configuration.websocketProvider.shouldConnect = false;
      await app.app.close();
      app = undefined;
      // The process is gone: a new one on the same PostgreSQL schema and Redis.
      await first.close();
      second = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL, schema: first.schema });
      app = await startTestApp({ database: second, store });
      const b = open(board.boardId, owner.token, app.url);
      expect(await outcome(b)).toBe('synced');
      expect(texts(b).toJSON()).toEqual({ debounced: 'yes', 'at-shutdown': 'yes' });
    } finally {
      rooms.destroyAll();
      await app?.app.close();
      await second?.close();
      await store.flush();
      await dropSchema(first.schema);
    }
  });

  it('a board with corrupt stored state fails alone and leaks no document', async () => {
    const owner = await signIn(server.url);
    const broken = (await createBoard(server.url, owner)).board.boardId;
    const fine = (await createBoard(server.url, owner)).board.boardId;
    await server.database.prisma.whiteboard.update({ where: { boardId: broken }, data: { yjsState: Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02]) } });
    const destroy = vi.spyOn(Document.prototype, 'destroy');
    try {
      const hocuspocus = server.app.collab.hocuspocus;
      const r = open(broken, owner.token);
      expect(await outcome(r)).toBe('refused');
      expect(r.refusals[0]).toBe('BOARD_UNREADABLE');
      const destroyedBroken = destroy.mock.contexts.filter((d) => (d as Document).name === broken) as Document[];
      expect(destroyedBroken).toHaveLength(1);
      expect(destroyedBroken[0]!.isDestroyed).toBe(true);
      expect(hocuspocus.documents.has(broken)).toBe(false);
      expect(hocuspocus.loadingDocuments.has(broken)).toBe(false);
      const ok = open(fine, owner.token);
      expect(await outcome(ok)).toBe('synced');
      rooms.destroyAll();
      await pollUntil(() => hocuspocus.getDocumentsCount() === 0, 5000);
      expect(hocuspocus.getDocumentsCount()).toBe(0);
    } finally {
      destroy.mockRestore();
    }
  });
});

describe('room limits (small limits to reach them)', () => {
  let limited: RunningApp;
  beforeAll(async () => {
    limited = await startTestApp({
      roomLimits: { maxMessageBytes: 64 * 1024, maxDocumentBytes: 16 * 1024, maxConnectionsPerBoard: 2, connectAttemptsPerMinute: 1000, awarenessPerSecond: 5 },
    });
  });
  afterAll(async () => {
    rooms.destroyAll();
    await limited?.close();
  });

  it('closes a client over a limit with a reason; the room and the server go on', async () => {
    const owner = await signIn(limited.url);
    const { board } = await api(limited.url, 'POST', BOARDS, { title: 'limits' }, owner.auth).then((r) => r.body);
    const a = open(board.boardId, owner.token, limited.url);
    const b = open(board.boardId, owner.token, limited.url);
    expect(await outcome(a)).toBe('synced');
    expect(await outcome(b)).toBe('synced');

    const third = open(board.boardId, owner.token, limited.url);
    expect(await outcome(third)).toBe('refused');
    expect(third.refusals[0]).toBe('TOO_MANY_CONNECTIONS');

    // Document size: an edit that would take the board past 16 KiB.
    texts(a).set('big', 'x'.repeat(20 * 1024));
    await pollUntil(() => a.closes.length > 0, 3000);
    expect(a.closes).toEqual(['DOCUMENT_TOO_LARGE']);
    expect(has(b, 'big')).toBe(false);

    // Awareness flood.
    for (let i = 0; i < 20; i++) b.provider.setAwarenessField('cursor', { x: i });
    await pollUntil(() => b.closes.length > 0, 3000);
    expect(b.closes).toEqual(['AWARENESS_RATE_EXCEEDED']);

    // Message size: a frame over 64 KiB closes the socket (1009).
    const raw = new WebSocket(`${limited.url.replace(/^http/, 'ws')}/collab`);
    const closed = new Promise<number>((resolve) => raw.on('close', (code) => resolve(code)));
    await new Promise((r) => raw.on('open', r));
    raw.send(Buffer.alloc(65 * 1024));
    expect(await closed).toBe(1009);

    const c = open(board.boardId, owner.token, limited.url);
    expect(await outcome(c)).toBe('synced');
    expect((await api(limited.url, 'GET', `${BOARDS}/${board.boardId}`, undefined, owner.auth)).status).toBe(200);
  });

  it('limits connection attempts per client address', async () => {
    const strict = await startTestApp({ roomLimits: { connectAttemptsPerMinute: 3 } });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const raw = new WebSocket(`${strict.url.replace(/^http/, 'ws')}/collab`, { headers: { 'x-forwarded-for': '10.9.9.9' } });
        const reason = await new Promise<string>((resolve) => {
          raw.on('close', (code, why) => resolve(`${code} ${why.toString()}`));
          raw.on('open', () => setTimeout(() => raw.close(), 50));
        });
        codes.push(Number(reason.split(' ')[0]));
        if (i === 4) expect(reason).toBe('4429 TOO_MANY_CONNECTION_ATTEMPTS');
      }
      expect(codes.slice(0, 3).every((c) => c !== 4429)).toBe(true);
      expect(codes.slice(3)).toEqual([4429, 4429]);
      const other = new WebSocket(`${strict.url.replace(/^http/, 'ws')}/collab`, { headers: { 'x-forwarded-for': '10.9.9.10' } });
      const code = await new Promise<number>((resolve) => {
        other.on('close', (c) => resolve(c));
        other.on('open', () => setTimeout(() => other.close(), 50));
      });
      expect(code).not.toBe(4429);
    } finally {
      await strict.close();
    }
  });
});
