import { openSharedStore } from '../../src/infra/redis.ts';
import { createRateLimiter } from '../../src/services/rateLimits.ts';
import { afterAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { PageTokens } from '../../src/services/pageTokens.ts';
import { createWhiteboardService, whiteboardsContext, yjsToScene } from '../../src/services/whiteboards/index.ts';
import { systemClock } from '../../src/infra/clock.ts';
import { signIn } from '../helpers/auth.ts';
import { tempDir } from '../helpers/infra.ts';
import { createBoard, openRoom, outcome, texts, type Room } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';
import { databaseEngines as engines } from '../helpers/infra.ts';

/**
 * A board's stored Y.Doc on both database engines: seeded from the snapshot, merged on
 * store. Opening PGlite (and migrating it) takes tens of seconds on a busy machine: hence
 * the longer timeouts.
 */

const stateWith = (base: Uint8Array, key: string) => {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, base);
  doc.getMap('notes').set(key, key);
  return Y.encodeStateAsUpdate(doc);
};

describe.each(engines)('stored whiteboard content on %s', (_name, open) => {
  it('starts from the initial snapshot, a store never drops what another copy stored first, settings lock the row', async () => {
    const { database, dispose } = await open();
    try {
      const account = await database.prisma.account.create({ data: { publicId: `Wb${Date.now()}`, kind: 'ROOT' } });
      const service = createWhiteboardService(
        whiteboardsContext({
          db: database.prisma,
          clock: systemClock(),
          pageTokens: new PageTokens('x'.repeat(32)),
          limiter: createRateLimiter({ db: database.prisma, store: await openSharedStore({ kind: 'memory', keyPrefix: 't:' }) }),
          events: new EventTarget() as never,
          topicPrefix: 't:',
        }),
      );
      const caller = { kind: 'session' as const, rootAccountId: account.id, rootPublicId: account.publicId, sessionId: 1n };
      const scene = { elements: [{ id: 'r', type: 'rectangle', width: 3 }], version: 4 };
      const { board } = await service.createWhiteboard(caller, { title: 'engines', initialSnapshot: scene });
      const base = (await service.loadContent(board.boardId))!;
      const seeded = new Y.Doc();
      Y.applyUpdate(seeded, base);
      expect(yjsToScene(seeded)).toEqual(scene);

      // Two copies of the board diverge (two processes); each stores only its own state.
      await service.storeContent(board.boardId, stateWith(base, 'first'));
      await service.storeContent(board.boardId, stateWith(base, 'second'));
      const merged = new Y.Doc();
      Y.applyUpdate(merged, (await service.loadContent(board.boardId))!);
      expect(merged.getMap('notes').toJSON()).toEqual({ first: 'first', second: 'second' });
      expect(yjsToScene(merged)).toEqual(scene);
      expect(await service.loadContent('00000000-0000-4000-8000-000000000000')).toBeUndefined();

      // Settings take the board's row lock on this engine too.
      const archived = await service.updateWhiteboard(caller, { boardId: board.boardId, title: 'renamed', archived: true });
      expect([archived.board.title, archived.board.accessVersion, archived.access.permissions.canEdit]).toEqual(['renamed', 2n, false]);
    } finally {
      await dispose();
    }
  }, 120_000);
});

describe('rooms with the embedded defaults (PGlite, in-process store)', () => {
  const rooms: Room[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const r of rooms) r.destroy();
    for (const c of cleanups.reverse()) await c();
  });

  it('editors converge and the board survives a restart', async () => {
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    const config = loadConfig({ NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATA_DIR: dir });
    const first = await createApp({ config });
    expect([first.database.kind, first.store.kind]).toEqual(['pglite', 'memory']);
    const url = await first.listen();
    const owner = await signIn(url);
    const { board } = await createBoard(url, owner);
    const a = openRoom(url, board.boardId, owner.token);
    const b = openRoom(url, board.boardId, owner.token);
    rooms.push(a, b);
    expect(await outcome(a)).toBe('synced');
    expect(await outcome(b)).toBe('synced');
    texts(a).set('a', '1');
    texts(b).set('b', '2');
    await pollUntil(() => texts(a).size === 2 && texts(b).size === 2, 3000);
    expect(texts(a).toJSON()).toEqual({ a: '1', b: '2' });
    for (const r of rooms.splice(0)) {
      r.provider.configuration.websocketProvider.shouldConnect = false;
    }
    await first.close();
    const second = await createApp({ config });
    cleanups.push(() => second.close());
    const url2 = await second.listen();
    const c = openRoom(url2, board.boardId, owner.token);
    rooms.push(c);
    expect(await outcome(c)).toBe('synced');
    expect(texts(c).toJSON()).toEqual({ a: '1', b: '2' });
  }, 120_000);
});
