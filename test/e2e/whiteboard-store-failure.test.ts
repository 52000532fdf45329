import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { signIn } from '../helpers/auth.ts';
import { startTestApp, testDatabase, type RunningApp } from '../helpers/infra.ts';
import { createBoard, outcome, OpenRooms, texts } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';

/**
 * A room whose store fails (the database busy: Prisma P2028, "Unable to start a transaction
 * in the given time") must neither end the process nor lose the edits its connections
 * sent: the failure is logged without the error's message, the document stays in memory
 * even once its last connection has gone, and the store is retried until the database
 * answers. (The same with a real refusal by PostgreSQL, a row lock held past the statement
 * timeout, on a separate process: whiteboard-processes.test.ts.)
 */
let server: RunningApp;
const rooms = new OpenRooms(() => server.url);
/**
 * Rejections nobody handled that the server raised (an Error: a provider's refused
 * reconnect during shutdown rejects with a ws ErrorEvent, a client's affair).
 */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => {
  if (reason instanceof Error) unhandled.push(reason);
};

beforeAll(async () => {
  server = await startTestApp();
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => rooms.destroyAll());
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await server?.close();
});

const MESSAGE = 'Transaction API error: Unable to start a transaction in the given time.';
const stored = async (boardId: string) => {
  const row = await server.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId } });
  const doc = new Y.Doc();
  if (row.yjsState) Y.applyUpdate(doc, row.yjsState);
  return doc.getMap<string>('notes').toJSON();
};
const storeFailures = (boardId: string) =>
  server.logs.map((l) => JSON.parse(l)).filter((l) => l.boardId === boardId && l.msg === 'whiteboard store failed; the room keeps its edits and retries');

describe('a failing store', () => {
  it('is logged and retried with backoff; the room keeps its edits, even with no connection left, and stores them once the database answers', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const id = board.boardId as string;
    const whiteboards = server.app.services.whiteboards;
    const realStore = whiteboards.storeContent;
    let failing = true;
    let attempts = 0;
    whiteboards.storeContent = async (boardId, state) => {
      if (boardId === id && failing) {
        attempts++;
        throw new Prisma.PrismaClientKnownRequestError(MESSAGE, { code: 'P2028', clientVersion: 'test' });
      }
      return realStore(boardId, state);
    };
    try {
      const room = rooms.open(id, owner.token);
      expect(await outcome(room)).toBe('synced');
      texts(room).set('kept', 'yes');
      // The debounced store fails, then its retries do (500 ms, 1 s, ...).
      await pollUntil(() => storeFailures(id).length >= 2, 10_000);
      const [first, second] = storeFailures(id);
      expect(first).toMatchObject({ errorName: 'PrismaClientKnownRequestError', errorCode: 'P2028', failures: 1, retryInMs: 500 });
      expect(second).toMatchObject({ failures: 2, retryInMs: 1000 });
      expect(server.logs.join('\n')).not.toContain('Unable to start a transaction');

      // Its last connection leaves: the room stays, its edits unstored (and retried).
      room.destroy();
      await pollUntil(() => server.app.collab.hocuspocus.documents.get(id)?.getConnectionsCount() === 0, 2000);
      expect(server.app.collab.hocuspocus.documents.get(id)?.getConnectionsCount()).toBe(0);
      const before = attempts;
      await pollUntil(() => attempts > before, 10_000);
      expect(server.app.collab.hocuspocus.documents.has(id)).toBe(true);
      expect(await stored(id)).toEqual({});

      failing = false;
      await pollUntil(async () => (await stored(id)).kept === 'yes', 20_000);
      // Stored, the room unloads as usual.
      await pollUntil(() => !server.app.collab.hocuspocus.documents.has(id), 5000);
      expect(server.logs.some((l) => l.includes('whiteboard store succeeded again') && l.includes(id))).toBe(true);
      expect(unhandled).toEqual([]);
    } finally {
      whiteboards.storeContent = realStore;
    }
  }, 40_000);

  it('at shutdown is retried until the flush deadline, and the server closes', async () => {
    // Its own schema, kept past the app's close to read what the shutdown stored.
    const database = await testDatabase();
    const app = await startTestApp({ database });
    let closed = false;
    const owner = await signIn(app.url);
    const { board } = await createBoard(app.url, owner);
    const id = board.boardId as string;
    const whiteboards = app.app.services.whiteboards;
    const realStore = whiteboards.storeContent;
    let calls = 0;
    // Fails twice, then the database answers: the flush's retries store the edit.
    whiteboards.storeContent = async (boardId, state) => {
      if (boardId === id && ++calls <= 2) throw new Prisma.PrismaClientKnownRequestError(MESSAGE, { code: 'P2028', clientVersion: 'test' });
      return realStore(boardId, state);
    };
    const room = new OpenRooms(() => app.url).open(id, owner.token);
    try {
      expect(await outcome(room)).toBe('synced');
      texts(room).set('at-shutdown', 'yes');
      await pollUntil(() => app.app.collab.hocuspocus.documents.get(id)?.getMap('notes').get('at-shutdown') === 'yes', 2000);
      await app.close();
      closed = true;
      expect(calls).toBe(3);
      const row = await database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId: id } });
      const doc = new Y.Doc();
      Y.applyUpdate(doc, row.yjsState!);
      expect(doc.getMap('notes').get('at-shutdown')).toBe('yes');
      expect(unhandled).toEqual([]);
    } finally {
      room.destroy();
      whiteboards.storeContent = realStore;
      if (!closed) await app.close();
      await database.drop();
    }
  }, 40_000);
});
