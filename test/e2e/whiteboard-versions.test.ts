import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { api, signIn, type SignedIn } from '../helpers/auth.ts';
import { shiftableClock } from '../helpers/clock.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { BOARDS, createBoard, outcome, OpenRooms, type Room } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 24 item 5: version snapshots of a board (at most one per 5 minutes of editing,
 * the last 20), restored by an editor as a new edit every open room receives, over /v1 and
 * GraphQL; and compaction of the stored state. @hocuspocus/provider is the room client.
 */
const clock = shiftableClock();
let server: RunningApp;
const rooms = new OpenRooms(() => server.url);
const open = rooms.open.bind(rooms);
const FIVE_MINUTES = 5 * 60_000;

beforeAll(async () => {
  server = await startTestApp({ clock });
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
const ids = (room: Room) => elements(room).toArray().map((m) => m.get('id'));
const element = (id: string, extra: Record<string, unknown> = {}) => new Y.Map<unknown>(Object.entries({ id, type: 'rectangle', ...extra }));
const storedRow = (boardId: string) => server.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId } });
const versionsOf = async (who: SignedIn, boardId: string) => {
  const r = await api(server.url, 'GET', `${BOARDS}/${boardId}/versions`, undefined, who.auth);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.versions as { versionId: string; createdAt: string; sizeBytes: number }[];
};
const restore = (who: SignedIn, boardId: string, versionId: string) =>
  api(server.url, 'POST', `${BOARDS}/${boardId}/versions/${versionId}/restore`, undefined, who.auth);
const exported = async (who: SignedIn, boardId: string) =>
  ((await api(server.url, 'GET', `${BOARDS}/${boardId}/export`, undefined, who.auth)).body.scene.elements as { id: string }[]).map((e) => e.id);
/** What a room would store now: the content of its document. */
const storeNow = (boardId: string, doc: Y.Doc) => server.app.services.whiteboards.storeContent(boardId, Y.encodeStateAsUpdate(doc));

const LIST = 'query($b: String!) { viewer { whiteboardVersions(boardId: $b) { versionId createdAt sizeBytes } } }';
const RESTORE = 'mutation($b: String!, $v: String!) { restoreWhiteboardVersion(boardId: $b, versionId: $v) { boardId versionId restoredAt } }';

describe('version snapshots', () => {
  it('are taken when a room stores its edits, at most one per 5 minutes of editing, and listed newest first to any role', async () => {
    const owner = await signIn(server.url);
    const viewer = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const id = board.boardId as string;
    await share(owner, id, viewer, 'VIEWER');
    expect(await versionsOf(owner, id)).toEqual([]);

    const o = open(id, owner.token);
    expect(await outcome(o)).toBe('synced');
    elements(o).push([element('a')]);
    // The room stores after its 2 s debounce; the store takes the first version.
    await pollUntil(async () => (await versionsOf(owner, id)).length === 1, 8000);
    const [first] = await versionsOf(owner, id);
    expect(first!.versionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(first!.sizeBytes).toBeGreaterThan(0);

    // Another store within 5 minutes: no new version.
    elements(o).push([element('b')]);
    await storeNow(id, o.doc);
    expect(await versionsOf(owner, id)).toHaveLength(1);
    clock.skip(FIVE_MINUTES);
    elements(o).push([element('c')]);
    await storeNow(id, o.doc);
    const listed = await versionsOf(viewer, id);
    expect(listed).toHaveLength(2);
    expect(listed[1]!.versionId).toBe(first!.versionId);
    expect(Date.parse(listed[0]!.createdAt) - Date.parse(listed[1]!.createdAt)).toBeGreaterThanOrEqual(FIVE_MINUTES);

    const q = await ask(viewer, LIST, { b: id });
    expect(q.body.errors).toBeUndefined();
    expect(q.body.data.viewer.whiteboardVersions.map((v: { versionId: string }) => v.versionId)).toEqual(listed.map((v) => v.versionId));
  });

  it('keeps the last 20 per board', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const id = board.boardId as string;
    const doc = new Y.Doc();
    const taken: string[] = [];
    for (let i = 0; i < 23; i++) {
      doc.getArray('elements').push([element(`e${i}`)]);
      await storeNow(id, doc);
      taken.unshift((await versionsOf(owner, id))[0]!.versionId);
      clock.skip(FIVE_MINUTES);
    }
    const kept = await versionsOf(owner, id);
    expect(kept.map((v) => v.versionId)).toEqual(taken.slice(0, 20));
    expect(await server.database.prisma.whiteboardVersion.count({ where: { whiteboard: { boardId: id } } })).toBe(20);
  });
});

/** A board whose first version holds element `a`, and whose content moved on to `b`, `c`. */
async function boardWithHistory(owner: SignedIn) {
  const { board } = await createBoard(server.url, owner, { title: 'history', initialSnapshot: { elements: [{ id: 'a', type: 'rectangle' }], version: 1 } });
  const id = board.boardId as string;
  const doc = new Y.Doc();
  Y.applyUpdate(doc, new Uint8Array((await storedRow(id)).yjsState!));
  await storeNow(id, doc);
  const [version] = await versionsOf(owner, id);
  clock.skip(FIVE_MINUTES);
  return { id, versionId: version!.versionId };
}

describe('restoring a version', () => {
  it('is a new edit every open room receives: the peers converge on the version without reconnecting', async () => {
    const owner = await signIn(server.url);
    const editor = await signIn(server.url);
    const viewer = await signIn(server.url);
    const { id, versionId } = await boardWithHistory(owner);
    await share(owner, id, editor, 'EDITOR');
    await share(owner, id, viewer, 'VIEWER');
    const e = open(id, editor.token);
    const v = open(id, viewer.token);
    for (const room of [e, v]) expect(await outcome(room)).toBe('synced');
    const editorDoc = e.doc;
    e.doc.transact(() => {
      elements(e).delete(0, 1);
      elements(e).push([element('b'), element('c')]);
    });
    await pollUntil(() => ids(v).join() === 'b,c', 3000);
    expect(ids(v)).toEqual(['b', 'c']);

    const r = await restore(editor, id, versionId);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ boardId: id, versionId });
    expect(Number.isNaN(Date.parse(r.body.restoredAt))).toBe(false);
    await pollUntil(() => ids(e).join() === 'a' && ids(v).join() === 'a', 3000);
    expect(ids(e)).toEqual(['a']);
    expect(ids(v)).toEqual(['a']);
    // The same documents, still connected: the restore came as an update, not a replacement.
    expect(e.doc).toBe(editorDoc);
    expect([...e.closes, ...e.socketCloses, ...v.closes, ...v.socketCloses]).toEqual([]);
    // Editing goes on from the restored content, for everyone.
    elements(e).push([element('d')]);
    await pollUntil(() => ids(v).join() === 'a,d', 3000);
    expect(ids(v)).toEqual(['a', 'd']);
    // The direct connection stored the restore at once.
    const stored = new Y.Doc();
    Y.applyUpdate(stored, new Uint8Array((await storedRow(id)).yjsState!));
    expect(stored.getArray<Y.Map<unknown>>('elements').toArray().map((m) => m.get('id'))).toContain('a');
  });

  it('works with no room open, over GraphQL too, and a restore can itself be undone by a later version', async () => {
    const owner = await signIn(server.url);
    const { id, versionId } = await boardWithHistory(owner);
    const doc = new Y.Doc();
    Y.applyUpdate(doc, new Uint8Array((await storedRow(id)).yjsState!));
    doc.transact(() => {
      doc.getArray('elements').delete(0, 1);
      doc.getArray('elements').push([element('x')]);
    });
    await storeNow(id, doc);
    const [later] = await versionsOf(owner, id);
    expect(later!.versionId).not.toBe(versionId);
    expect(await exported(owner, id)).toEqual(['x']);

    const q = await ask(owner, RESTORE, { b: id, v: versionId });
    expect(q.body.errors).toBeUndefined();
    expect(q.body.data.restoreWhiteboardVersion).toMatchObject({ boardId: id, versionId });
    expect(await exported(owner, id)).toEqual(['a']);
    expect((await restore(owner, id, later!.versionId)).status).toBe(200);
    expect(await exported(owner, id)).toEqual(['x']);
  });

  it('refuses a viewer (403), strangers and other spellings (404), and versions of another board (404), changing nothing', async () => {
    const owner = await signIn(server.url);
    const viewer = await signIn(server.url);
    const stranger = await signIn(server.url);
    const { id, versionId } = await boardWithHistory(owner);
    const other = await boardWithHistory(stranger);
    await share(owner, id, viewer, 'VIEWER');
    const doc = new Y.Doc();
    Y.applyUpdate(doc, new Uint8Array((await storedRow(id)).yjsState!));
    doc.getArray('elements').push([element('z')]);
    await storeNow(id, doc);
    const before = await exported(owner, id);
    expect(before).toEqual(['a', 'z']);

    expectProblem(await restore(viewer, id, versionId), 403, 'WHITEBOARD_EDIT_DENIED');
    expect((await ask(viewer, RESTORE, { b: id, v: versionId })).body.errors[0].extensions).toMatchObject({ code: 'WHITEBOARD_EDIT_DENIED', status: 403 });
    expectProblem(await restore(stranger, id, versionId), 404, 'WHITEBOARD_NOT_FOUND');
    expectProblem(await api(server.url, 'GET', `${BOARDS}/${id}/versions`, undefined, stranger.auth), 404, 'WHITEBOARD_NOT_FOUND');
    expect((await ask(stranger, LIST, { b: id })).body.errors[0].extensions).toMatchObject({ code: 'WHITEBOARD_NOT_FOUND', status: 404 });
    expect((await ask(stranger, RESTORE, { b: id, v: versionId })).body.errors[0].extensions).toMatchObject({ code: 'WHITEBOARD_NOT_FOUND', status: 404 });
    // The other board's version, named under this board: its owner cannot move it across.
    expectProblem(await restore(owner, id, other.versionId), 404, 'WHITEBOARD_VERSION_NOT_FOUND');
    expect((await ask(owner, RESTORE, { b: id, v: other.versionId })).body.errors[0].extensions).toMatchObject({ code: 'WHITEBOARD_VERSION_NOT_FOUND', status: 404 });
    for (const bad of ['nope', versionId.toUpperCase(), `{${versionId}}`, versionId.replace(/-/g, ''), '00000000-0000-0000-0000-000000000000']) {
      expectProblem(await restore(owner, id, encodeURIComponent(bad)), 404, 'WHITEBOARD_VERSION_NOT_FOUND');
    }
    expectProblem(await restore(owner, id.toUpperCase(), versionId), 404, 'WHITEBOARD_NOT_FOUND');
    expectProblem(await api(server.url, 'GET', `${BOARDS}/${id.toUpperCase()}/versions`, undefined, owner.auth), 404, 'WHITEBOARD_NOT_FOUND');
    expectProblem(await api(server.url, 'GET', `${BOARDS}/not-a-board/versions`, undefined, owner.auth), 404, 'WHITEBOARD_NOT_FOUND');
    // An archived board is read-only for its owner too.
    expect((await api(server.url, 'PATCH', `${BOARDS}/${id}`, { archived: true }, owner.auth)).status).toBe(200);
    expectProblem(await restore(owner, id, versionId), 403, 'WHITEBOARD_EDIT_DENIED');
    expect(await exported(owner, id)).toEqual(before);
    expect(await exported(stranger, other.id)).toEqual(['a']);
  });

  it('charges ACCOUNT_ADMIN 2 units (whiteboard.restore) on both transports; a refused restore changes nothing', async () => {
    const owner = await signIn(server.url);
    // 6 units that do not come back within the test: the board (2), two restores, then refusals.
    const override = await api(
      server.url,
      'PUT',
      '/operator/v1/rate-limit-overrides',
      { pool: 'ACCOUNT_ADMIN', accountId: owner.rootAccountId, quotaWeight: '1', periodMs: '3600000', burstWeight: '6' },
      { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
    );
    expect(override.status).toBe(200);
    const { id, versionId } = await boardWithHistory(owner);
    expect((await restore(owner, id, versionId)).status).toBe(200);
    expect((await ask(owner, RESTORE, { b: id, v: versionId })).body.errors).toBeUndefined();
    const doc = new Y.Doc();
    Y.applyUpdate(doc, new Uint8Array((await storedRow(id)).yjsState!));
    doc.getArray('elements').push([element('kept')]);
    await storeNow(id, doc);
    const refused = await restore(owner, id, versionId);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', rate_limit: { policy_class: 'ACCOUNT_ADMIN', operation_id: 'whiteboard.restore' } });
    expect((await ask(owner, RESTORE, { b: id, v: versionId })).body.errors[0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(await exported(owner, id)).toEqual(['a', 'kept']);
  });
});

describe('restoring a version, held to the document cap', () => {
  it('refuses a restore whose document would pass the cap (409 DOCUMENT_TOO_LARGE) on both transports, changing nothing for the room or the store', async () => {
    // The rooms of this server cap a document at 64 KiB; a version of 96 KiB was stored
    // directly (a store is not capped), then its content deleted.
    const capped = await startTestApp({ clock, roomLimits: { maxDocumentBytes: 64 * 1024 } });
    const cappedRooms = new OpenRooms(() => capped.url);
    try {
      const owner = await signIn(capped.url);
      const { board } = await createBoard(capped.url, owner);
      const id = board.boardId as string;
      const doc = new Y.Doc();
      doc.getArray('elements').push(Array.from({ length: 96 }, (_, i) => element(`big${i}`, { text: 'x'.repeat(1024) })));
      await capped.app.services.whiteboards.storeContent(id, Y.encodeStateAsUpdate(doc));
      const r = await api(capped.url, 'GET', `${BOARDS}/${id}/versions`, undefined, owner.auth);
      const [big] = r.body.versions as { versionId: string; sizeBytes: number }[];
      expect(big!.sizeBytes).toBeGreaterThan(96 * 1024);
      doc.transact(() => {
        doc.getArray('elements').delete(0, 96);
        doc.getArray('elements').push([element('small')]);
      });
      await capped.app.services.whiteboards.storeContent(id, Y.encodeStateAsUpdate(doc));
      const storedBefore = (await capped.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId: id } })).yjsState;
      expect(storedBefore!.length).toBeLessThan(64 * 1024);

      const room = cappedRooms.open(id, owner.token);
      expect(await outcome(room)).toBe('synced');
      expect(ids(room)).toEqual(['small']);
      const refused = await api(capped.url, 'POST', `${BOARDS}/${id}/versions/${big!.versionId}/restore`, undefined, owner.auth);
      expectProblem(refused, 409, 'DOCUMENT_TOO_LARGE');
      expect(refused.body.maxBytes).toBe(64 * 1024);
      expect(refused.body.sizeBytes).toBeGreaterThan(64 * 1024);
      const q = await api(capped.url, 'POST', '/graphql', { query: RESTORE, variables: { b: id, v: big!.versionId } }, owner.auth);
      expect(q.body.errors[0].extensions).toMatchObject({ code: 'DOCUMENT_TOO_LARGE', status: 409 });
      // Nothing reached the room, its connection is open, the store and the export are as they were.
      await new Promise((r) => setTimeout(r, 300));
      expect(ids(room)).toEqual(['small']);
      expect([...room.closes, ...room.socketCloses]).toEqual([]);
      expect(capped.app.collab.hocuspocus.documents.get(id)?.getArray('elements').length).toBe(1);
      const exportNow = await api(capped.url, 'GET', `${BOARDS}/${id}/export`, undefined, owner.auth);
      expect(exportNow.body.scene.elements.map((e: { id: string }) => e.id)).toEqual(['small']);
      expect((await capped.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId: id } })).yjsState).toEqual(storedBefore);

      // With no room open the same.
      cappedRooms.destroyAll();
      await pollUntil(() => !capped.app.collab.hocuspocus.documents.has(id), 5000);
      expectProblem(await api(capped.url, 'POST', `${BOARDS}/${id}/versions/${big!.versionId}/restore`, undefined, owner.auth), 409, 'DOCUMENT_TOO_LARGE');
      expect((await capped.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId: id } })).yjsState).toEqual(storedBefore);
    } finally {
      cappedRooms.destroyAll();
      await capped.close();
    }
  }, 30_000);
});

describe('compaction', () => {
  it('stores a board with much deleted content at the size of what is left', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const id = board.boardId as string;
    const o = open(id, owner.token);
    expect(await outcome(o)).toBe('synced');
    const payload = 'x'.repeat(1024);
    // What a store without compaction keeps: a document that never collects its garbage, so
    // deleted elements stay in it (Y.mergeUpdates gives either size, depending on struct order).
    const uncompacted = new Y.Doc({ gc: false });
    Y.applyUpdate(uncompacted, new Uint8Array((await storedRow(id)).yjsState!));
    const store = async () => {
      const state = Y.encodeStateAsUpdate(o.doc);
      Y.applyUpdate(uncompacted, state);
      await server.app.services.whiteboards.storeContent(id, state);
    };
    for (let batch = 0; batch < 5; batch++) {
      for (let i = 0; i < 100; i++) elements(o).push([element(`e${batch}-${i}`, { text: payload })]);
      await store();
    }
    const before = new Uint8Array((await storedRow(id)).yjsState!);
    expect(before.length).toBeGreaterThan(500 * 1024);
    // Churn: everything deleted, then a little added.
    elements(o).delete(0, elements(o).length);
    elements(o).push([element('left')]);
    await store();
    const after = new Uint8Array((await storedRow(id)).yjsState!);
    const kept = Y.encodeStateAsUpdate(uncompacted).length;
    console.log(`compaction: ${before.length} bytes stored before the deletes, ${after.length} after (${kept} without compaction)`);
    expect(after.length * 20).toBeLessThan(before.length);
    expect(kept).toBeGreaterThan(after.length * 20);
    expect(await exported(owner, id)).toEqual(['left']);
  });
});
