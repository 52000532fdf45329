import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'node:net';
import type WebSocket from 'ws';
import * as Y from 'yjs';
import { api, signIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { BOARDS, createBoard, outcome, OpenRooms, type Room } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 23 for rooms: a connection whose client stops reading is closed once its send queue
 * passes its bound (4408 SUBSCRIBER_TOO_SLOW), while the board's other connections go on
 * receiving every edit. @hocuspocus/provider clients; the slow one's socket is paused.
 */
let server: RunningApp;
const rooms = new OpenRooms(() => server.url);
const open = rooms.open.bind(rooms);
const QUEUE_BYTES = 512 * 1024;

beforeAll(async () => {
  server = await startTestApp({ roomLimits: { maxSendQueueMessages: 200, maxSendQueueBytes: QUEUE_BYTES } });
});
afterEach(() => {
  rooms.destroyAll();
});
afterAll(async () => {
  await server?.close();
});

interface Paused {
  resume(): void;
}

/**
 * Stops a client reading its TCP socket. ws resumes a socket it paused for its own
 * backpressure, so resume is held off until the test says.
 */
function stopReading(room: Room): Paused {
  const socket = (room.provider.configuration.websocketProvider.webSocket as unknown as WebSocket & { _socket: Socket })._socket;
  const resume = socket.resume.bind(socket);
  socket.resume = () => socket;
  socket.pause();
  return {
    resume() {
      socket.resume = resume;
      socket.resume();
    },
  };
}
const ids = (room: Room) => room.doc.getArray<Y.Map<unknown>>('elements').toArray().map((m) => m.get('id'));

describe('a room connection that stops reading', () => {
  it('is closed 4408 SUBSCRIBER_TOO_SLOW once its queue passes the bound, and the other peers keep every edit', async () => {
    const owner = await signIn(server.url);
    const viewer = await signIn(server.url);
    const slowOne = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const id = board.boardId as string;
    for (const who of [viewer, slowOne]) {
      expect((await api(server.url, 'PUT', `${BOARDS}/${id}/members/${who.rootAccountId}`, { role: 'VIEWER' }, owner.auth)).status).toBe(200);
    }
    const editor = open(id, owner.token);
    const fast = open(id, viewer.token);
    const slow = open(id, slowOne.token);
    for (const room of [editor, fast, slow]) expect(await outcome(room)).toBe('synced');
    const document = server.app.collab.hocuspocus.documents.get(id)!;
    expect(document.getConnectionsCount()).toBe(3);

    const paused = stopReading(slow);
    // Each round sends the readers a 32 KiB update and a small one (the delete): the
    // kernel's socket buffers fill first, then the server's queue for the slow reader.
    const elements = editor.doc.getArray<Y.Map<unknown>>('elements');
    const big = 'x'.repeat(32 * 1024);
    let rounds = 0;
    while (document.getConnectionsCount() === 3 && rounds < 3000) {
      elements.push([new Y.Map<unknown>([['id', `big${rounds}`], ['text', big]])]);
      elements.delete(0, 1);
      rounds++;
      // The fast reader has this round before the next: it is never the one behind.
      const clock = Y.decodeStateVector(Y.encodeStateVector(editor.doc)).get(editor.doc.clientID);
      await pollUntil(() => Y.decodeStateVector(Y.encodeStateVector(fast.doc)).get(editor.doc.clientID) === clock, 2000, 1);
    }
    expect(document.getConnectionsCount()).toBe(2);
    expect(server.logs.some((l) => l.includes('its client stopped reading'))).toBe(true);
    console.log(`slow room reader closed after ${rounds} rounds of about 32 KiB (queue bound ${QUEUE_BYTES} bytes, 200 messages)`);

    // The others go on: the next edit reaches the fast reader.
    elements.push([new Y.Map<unknown>([['id', 'after']])]);
    await pollUntil(() => ids(fast).join() === 'after', 3000);
    expect(ids(fast)).toEqual(['after']);
    expect([...editor.closes, ...editor.socketCloses, ...fast.closes, ...fast.socketCloses]).toEqual([]);

    // Once it reads again, the slow client finds the close and its reason behind its backlog.
    paused.resume();
    await pollUntil(() => slow.socketCloses.length > 0, 10_000);
    expect(slow.socketCloses).toEqual(['4408 SUBSCRIBER_TOO_SLOW: reconnect to resynchronise']);
  }, 120_000);
});
