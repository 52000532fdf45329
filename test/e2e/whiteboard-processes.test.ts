import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, onboard, signIn } from '../helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.ts';
import * as Y from 'yjs';
import { startTestApp, testDatabase, testStore, type RunningApp } from '../helpers/infra.ts';
import { apiKeyRoomToken, BOARDS, createBoard, keyFor, openRoom, outcome, texts, type Room } from '../helpers/rooms.ts';
import { TcpProxy } from '../helpers/tcpProxy.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Two server processes on one PostgreSQL schema and one Redis: this test's process runs
 * the whole service, a child process runs src/roomsMain.ts (rooms only: a second full
 * service refuses to start beside the trading engine's owner).
 */
let main: RunningApp;
let database: Awaited<ReturnType<typeof testDatabase>>;
let store: Awaited<ReturnType<typeof testStore>>;
let child: ChildProcess;
let childUrl: string;
const rooms: Room[] = [];

function startRoomsNode(redisUrl = TEST_REDIS_URL): Promise<{ process: ChildProcess; url: string; output(): string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/roomsMain.ts')], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      TRUST_PROXY: 'true',
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: database.schema,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: store.keyPrefix,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('serving /collab'));
      if (line) resolve({ process: proc, url: `http://127.0.0.1:${JSON.parse(line).port}`, output: () => out });
    });
    proc.stderr!.on('data', () => undefined);
    proc.once('exit', (code) => reject(new Error(`rooms node exited with ${code}: ${out}`)));
  });
}

beforeAll(async () => {
  database = await testDatabase();
  store = await testStore();
  main = await startTestApp({ database, store });
  const node = await startRoomsNode();
  child = node.process;
  childUrl = node.url;
}, 60_000);

afterEach(() => {
  for (const room of rooms.splice(0)) room.destroy();
});

afterAll(async () => {
  for (const room of rooms.splice(0)) room.destroy();
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await main?.close();
});

const open = (url: string, boardId: string, token: string | (() => string)) => {
  const room = openRoom(url, boardId, token);
  rooms.push(room);
  return room;
};

describe('rooms on two processes sharing PostgreSQL and Redis', () => {
  it('editors on different processes converge, and access changes reach the other process', async () => {
    const owner = await signIn(main.url);
    const guest = await signIn(main.url);
    const { board } = await createBoard(main.url, owner, { title: 'two nodes', initialSnapshot: { elements: [{ id: 'x' }], version: 1 } });
    await api(main.url, 'PUT', `${BOARDS}/${board.boardId}/members/${guest.rootAccountId}`, { role: 'EDITOR' }, owner.auth);
    const a = open(main.url, board.boardId, owner.token);
    const b = open(childUrl, board.boardId, guest.token);
    expect(await outcome(a)).toBe('synced');
    expect(await outcome(b)).toBe('synced');
    expect(b.doc.getArray('elements').length).toBe(1);
    for (let i = 0; i < 20; i++) {
      texts(a).set(`a${i}`, String(i));
      texts(b).set(`b${i}`, String(i));
    }
    await pollUntil(() => texts(a).size === 40 && texts(b).size === 40, 5000);
    expect(texts(a).toJSON()).toEqual(texts(b).toJSON());
    expect(texts(a).size).toBe(40);

    // Revoked on the main process, closed on the rooms node.
    await api(main.url, 'DELETE', `${BOARDS}/${board.boardId}/members/${guest.rootAccountId}`, undefined, owner.auth);
    await pollUntil(() => b.closes.length > 0, 1000);
    expect(b.closes).toEqual(['ACCESS_REVOKED']);

    // Deleted on the main process: the board's room closes for everyone on both processes.
    const c = open(childUrl, board.boardId, owner.token);
    expect(await outcome(c)).toBe('synced');
    expect((await api(main.url, 'DELETE', `${BOARDS}/${board.boardId}`, undefined, owner.auth)).status).toBe(200);
    await pollUntil(() => a.closes.length > 0 && c.closes.length > 0, 1000);
    expect(a.closes).toEqual(['BOARD_DELETED']);
    expect(c.closes).toEqual(['BOARD_DELETED']);
    const later = open(childUrl, board.boardId, owner.token);
    expect(await outcome(later)).toBe('refused');
    expect(later.refusals).toEqual(['WHITEBOARD_NOT_FOUND']);
  });

  it('a board edited through both processes is stored whole when the rooms node stops', async () => {
    const owner = await signIn(main.url);
    const { board } = await createBoard(main.url, owner);
    const a = open(main.url, board.boardId, owner.token);
    const b = open(childUrl, board.boardId, owner.token);
    expect(await outcome(a)).toBe('synced');
    expect(await outcome(b)).toBe('synced');
    texts(a).set('via-main', '1');
    texts(b).set('via-node', '1');
    await pollUntil(() => texts(a).size === 2 && texts(b).size === 2, 5000);
    expect(texts(a).toJSON()).toEqual({ 'via-main': '1', 'via-node': '1' });
    expect(texts(b).toJSON()).toEqual(texts(a).toJSON());
    b.provider.configuration.websocketProvider.shouldConnect = false;
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    a.destroy();
    rooms.splice(rooms.indexOf(a), 1);
    // Both processes stored their part; a fresh room sees the union.
    await pollUntil(() => main.app.collab.hocuspocus.getDocumentsCount() === 0, 5000);
    const c = open(main.url, board.boardId, owner.token);
    expect(await outcome(c)).toBe('synced');
    expect(texts(c).toJSON()).toEqual({ 'via-main': '1', 'via-node': '1' });
  });

  it('a rooms node cut off from the bus fails closed: when the bus comes back it rechecks every connection, so a member removed and a key revoked meanwhile are cut off', async () => {
    // The rooms node reaches Redis through a proxy the test can partition; the main
    // process keeps its own connection, so its publishes go out and the node misses them.
    const redis = new URL(TEST_REDIS_URL);
    const proxy = await TcpProxy.start({ host: redis.hostname, port: Number(redis.port || 6379) });
    const proxied = new URL(TEST_REDIS_URL);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const node = await startRoomsNode(proxied.toString());
    try {
      const owner = await onboard(main.url);
      const guest = await signIn(main.url);
      const key = await keyFor(main.url, owner, ['READ', 'TRADE']);
      const { board } = await createBoard(main.url, owner, { title: 'partition' });
      await api(main.url, 'PUT', `${BOARDS}/${board.boardId}/members/${guest.rootAccountId}`, { role: 'EDITOR' }, owner.auth);
      const a = open(main.url, board.boardId, owner.token);
      const b = open(node.url, board.boardId, guest.token);
      const k = open(node.url, board.boardId, () => apiKeyRoomToken(key, board.boardId));
      for (const room of [a, b, k]) expect(await outcome(room)).toBe('synced');

      proxy.block();
      expect((await api(main.url, 'DELETE', `${BOARDS}/${board.boardId}/members/${guest.rootAccountId}`, undefined, owner.auth)).status).toBe(200);
      expect((await api(main.url, 'DELETE', `/v1/auth/api-keys/${key.keyId}`, undefined, owner.auth)).status).toBe(200);
      proxy.unblock();
      // ioredis retries at most a second apart; the recheck follows the resubscription.
      await pollUntil(() => b.closes.length > 0 && k.closes.length > 0, 5_000);
      expect(b.closes).toEqual(['ACCESS_REVOKED']);
      expect(k.closes).toEqual(['CREDENTIALS_REVOKED']);
      await pollUntil(() => b.socketCloses.length > 0 && k.socketCloses.length > 0, 2_000);
      expect(b.socketCloses[0]).toBe('4403 ACCESS_REVOKED');
      expect(k.socketCloses[0]).toBe('4401 CREDENTIALS_REVOKED');
      texts(b).set('after-removal', '1');
      texts(a).set('marker', '1');
      await pollUntil(() => texts(a).has('marker'), 3_000);
      const fresh = open(node.url, board.boardId, owner.token);
      expect(await outcome(fresh)).toBe('synced');
      expect(texts(fresh).has('after-removal')).toBe(false);

      // It keeps doing so after every gap: a second partition, a second removal.
      const other = await signIn(main.url);
      await api(main.url, 'PUT', `${BOARDS}/${board.boardId}/members/${other.rootAccountId}`, { role: 'VIEWER' }, owner.auth);
      const c = open(node.url, board.boardId, other.token);
      expect(await outcome(c)).toBe('synced');
      proxy.block();
      expect((await api(main.url, 'DELETE', `${BOARDS}/${board.boardId}/members/${other.rootAccountId}`, undefined, owner.auth)).status).toBe(200);
      proxy.unblock();
      await pollUntil(() => c.closes.length > 0, 5_000);
      expect(c.closes).toEqual(['ACCESS_REVOKED']);
      expect(a.closes).toEqual([]);
      expect(fresh.closes).toEqual([]);
    } finally {
      // Its providers would reconnect to the stopping node (503) and report it.
      for (const room of rooms.splice(0)) room.destroy();
      const exited = new Promise((r) => node.process.once('exit', r));
      node.process.kill('SIGTERM');
      await exited;
      await proxy.close();
    }
  }, 60_000);

  it('a restore asked of the main process reaches a provider connected to the rooms node', async () => {
    const node = await startRoomsNode();
    try {
      const owner = await signIn(main.url);
      const { board } = await createBoard(main.url, owner, { title: 'restore across' });
      const id = board.boardId as string;
      const b = open(node.url, id, owner.token);
      expect(await outcome(b)).toBe('synced');
      const elements = b.doc.getArray<Y.Map<unknown>>('elements');
      const ids = () => elements.toArray().map((m) => m.get('id'));
      elements.push([new Y.Map<unknown>([['id', 'first']])]);
      // The node's first store (2 s debounce) takes the board's first version.
      let versions: { versionId: string }[] = [];
      await pollUntil(async () => {
        versions = (await api(main.url, 'GET', `${BOARDS}/${id}/versions`, undefined, owner.auth)).body.versions;
        return versions.length > 0;
      }, 10_000);
      expect(versions).toHaveLength(1);
      b.doc.transact(() => {
        elements.delete(0, 1);
        elements.push([new Y.Map<unknown>([['id', 'later']])]);
      });
      // Stored by the node (its debounce) before the restore: main loads the stored state for
      // it, and elements added elsewhere and not stored yet would survive a restore
      // (docs/api-decisions.md, "Restoring a version").
      await pollUntil(async () => (await api(main.url, 'GET', `${BOARDS}/${id}/export`, undefined, owner.auth)).body.scene.elements[0]?.id === 'later', 10_000);
      expect(main.app.collab.hocuspocus.documents.has(id)).toBe(false);

      const r = await api(main.url, 'POST', `${BOARDS}/${id}/versions/${versions[0]!.versionId}/restore`, undefined, owner.auth);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      await pollUntil(() => ids().join() === 'first', 5_000);
      expect(ids()).toEqual(['first']);
      expect([...b.closes, ...b.socketCloses]).toEqual([]);
    } finally {
      for (const room of rooms.splice(0)) room.destroy();
      const exited = new Promise((r) => node.process.once('exit', r));
      node.process.kill('SIGTERM');
      await exited;
    }
  }, 40_000);

  it('a rooms node whose store PostgreSQL refuses (a row lock past the statement timeout) stays up, keeps the edit and stores it once the lock goes', async () => {
    const node = await startRoomsNode();
    let release = () => {};
    try {
      const owner = await signIn(main.url);
      const { board } = await createBoard(main.url, owner, { title: 'locked' });
      const id = board.boardId as string;
      const b = open(node.url, id, owner.token);
      expect(await outcome(b)).toBe('synced');
      const released = new Promise<void>((r) => (release = r));
      let locked = false;
      const holding = main.database.prisma.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT 1 FROM "Whiteboard" WHERE "boardId" = ${id}::uuid FOR UPDATE`;
          locked = true;
          await released;
        },
        { timeout: 30_000 },
      );
      await pollUntil(() => locked, 5_000);
      texts(b).set('kept', 'yes');
      // Stored after 2 s, waiting on the lock until the 3 s statement timeout.
      await pollUntil(() => node.output().includes('whiteboard store failed'), 15_000);
      const failure = node.output().split('\n').find((l) => l.includes('whiteboard store failed'))!;
      expect(JSON.parse(failure)).toMatchObject({ boardId: id, failures: 1, retryInMs: 500 });
      expect(failure).not.toContain('statement timeout');
      release();
      await holding;
      expect(node.process.exitCode).toBeNull();
      await pollUntil(async () => {
        const row = await main.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId: id } });
        const doc = new Y.Doc();
        if (row.yjsState) Y.applyUpdate(doc, row.yjsState);
        return doc.getMap('notes').get('kept') === 'yes';
      }, 10_000);
      const row = await main.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId: id } });
      const doc = new Y.Doc();
      Y.applyUpdate(doc, row.yjsState!);
      expect(doc.getMap('notes').toJSON()).toEqual({ kept: 'yes' });
      expect(node.process.exitCode).toBeNull();
      expect([...b.closes, ...b.socketCloses]).toEqual([]);
    } finally {
      release();
      for (const room of rooms.splice(0)) room.destroy();
      const exited = new Promise<number | null>((r) => node.process.once('exit', r));
      node.process.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 60_000);
});
