import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import * as Y from 'yjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { yjsToScene } from '../../src/services/whiteboards/index.ts';
import { api, signIn, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { BOARDS, createBoard, OpenRooms, outcome, texts } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * A real browser in a room: test/browser/room-page.ts (yjs + @hocuspocus/provider bundled
 * by esbuild, the provider reconnecting as it does by default) run in Debian's headless
 * Chromium through playwright-core, against the whole service. Every page is its own
 * browser context, as two people on two machines.
 */
let server: RunningApp;
let browser: Browser;
let bundle: string;
const pages: Page[] = [];
const rooms = new OpenRooms(() => server.url);

beforeAll(async () => {
  const built = await build({
    entryPoints: [path.resolve('test/browser/room-page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  bundle = built.outputFiles[0]!.text;
  server = await startTestApp();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 60_000);

afterEach(async () => {
  rooms.destroyAll();
  await Promise.all(pages.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Scene {
  elements: Record<string, unknown>[];
  version: number;
}

/** A new page that has joined the board's room as `who` (synced). */
async function joined(boardId: string, who: SignedIn): Promise<Page> {
  const page = await browser.newPage();
  pages.push(page);
  // Served by the service's own origin is not needed: a WebSocket has no CORS.
  await page.setContent(`<!doctype html><html><body><script>${bundle}</script></body></html>`);
  const wsUrl = `${server.url.replace(/^http/, 'ws')}/collab`;
  await page.evaluate(([url, id, token]) => window.room.open(url!, id!, token!), [wsUrl, boardId, who.token]);
  return page;
}

const sceneOf = (page: Page): Promise<Scene> => page.evaluate(() => window.room.scene());
const ids = (scene: Scene) => scene.elements.map((e) => e.id);

async function exported(boardId: string, who: SignedIn): Promise<Scene> {
  const r = await api(server.url, 'GET', `${BOARDS}/${boardId}/export`, undefined, who.auth);
  expect(r.status).toBe(200);
  return r.body.scene as Scene;
}

/** The scene the board's row holds (what the room stored), read as the service reads it. */
async function stored(boardId: string): Promise<Scene> {
  const row = await server.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId }, select: { yjsState: true } });
  const doc = new Y.Doc();
  try {
    if (row.yjsState && row.yjsState.length > 0) Y.applyUpdate(doc, row.yjsState);
    return yjsToScene(doc);
  } finally {
    doc.destroy();
  }
}

/** A board of `owner` with `editors` as EDITOR members, seeded with one element. */
async function boardWithEditors(owner: SignedIn, editors: SignedIn[]) {
  const initialSnapshot = { elements: [{ id: 'seed', type: 'rectangle', x: 0, y: 0 }], version: 3 };
  const { board } = await createBoard(server.url, owner, { title: 'browser', initialSnapshot });
  for (const e of editors) {
    const r = await api(server.url, 'PUT', `${BOARDS}/${board.boardId}/members/${e.rootAccountId}`, { role: 'EDITOR' }, owner.auth);
    expect(r.status).toBe(200);
  }
  return board.boardId as string;
}

describe('a whiteboard room in headless Chromium', () => {
  it('edits made in the browser reach a Node provider, and the reverse', async () => {
    const owner = await signIn(server.url);
    const editor = await signIn(server.url);
    const boardId = await boardWithEditors(owner, [editor]);
    const page = await joined(boardId, editor);
    expect(await page.evaluate(() => window.room.scope())).toBe('read-write');

    const node = rooms.open(boardId, owner.token);
    expect(await outcome(node)).toBe('synced');

    await page.evaluate(() => window.room.set('from-browser', 'hello from chromium'));
    await pollUntil(() => texts(node).has('from-browser'), 5000);
    expect(texts(node).get('from-browser')).toBe('hello from chromium');

    texts(node).set('from-node', 'hello from node');
    await pollUntil(async () => (await page.evaluate(() => window.room.get('from-node'))) !== undefined, 5000);
    expect(await page.evaluate(() => window.room.get('from-node'))).toBe('hello from node');
  });

  it('the scene exported over /v1 is the scene two editing pages show', async () => {
    const owner = await signIn(server.url);
    const [alice, bob] = [await signIn(server.url), await signIn(server.url)];
    const boardId = await boardWithEditors(owner, [alice, bob]);
    const a = await joined(boardId, alice);
    const b = await joined(boardId, bob);
    await a.evaluate(() => window.room.addElement({ id: 'a1', type: 'ellipse', x: 10, y: 20, strokeColor: '#1e1e1e' }));
    await b.evaluate(() => window.room.addElement({ id: 'b1', type: 'text', x: 5, y: 6, text: 'é ✓' }));
    await pollUntil(async () => (await sceneOf(a)).elements.length === 3 && (await sceneOf(b)).elements.length === 3, 5000);

    const shown = await sceneOf(a);
    expect(ids(shown).sort()).toEqual(['a1', 'b1', 'seed']);
    expect(shown.version).toBe(3);
    expect(await sceneOf(b)).toEqual(shown);
    expect(await exported(boardId, owner)).toEqual(shown);
  });

  it('a member the owner removes sees its room close, and what its page edits afterwards is never stored', async () => {
    const owner = await signIn(server.url);
    const [alice, bob] = [await signIn(server.url), await signIn(server.url)];
    const boardId = await boardWithEditors(owner, [alice, bob]);
    const a = await joined(boardId, alice);
    const b = await joined(boardId, bob);
    await b.evaluate(() => window.room.addElement({ id: 'b-before', type: 'line' }));
    await pollUntil(async () => ids(await sceneOf(a)).includes('b-before'), 5000);

    const removed = await api(server.url, 'DELETE', `${BOARDS}/${boardId}/members/${bob.rootAccountId}`, undefined, owner.auth);
    expect(removed.status).toBe(200);
    await pollUntil(async () => (await b.evaluate(() => window.room.state())).closes.includes('ACCESS_REVOKED'), 5000);
    expect((await b.evaluate(() => window.room.state())).closes).toContain('ACCESS_REVOKED');
    // The provider reconnects by itself (its default) and is authenticated again: refused.
    await pollUntil(async () => (await b.evaluate(() => window.room.state())).refusals.length > 0, 10_000);
    const seen = await b.evaluate(() => window.room.state());
    // The close message and the socket's 4403 close carry the same reason; a removed member
    // is told the board is not found, as anyone without a role is.
    expect(new Set(seen.closes)).toEqual(new Set(['ACCESS_REVOKED']));
    expect(seen.refusals[0]).toBe('WHITEBOARD_NOT_FOUND');
    expect(seen.authenticated).toBe(false);

    await b.evaluate(() => window.room.addElement({ id: 'b-after', type: 'line' }));
    await a.evaluate(() => window.room.addElement({ id: 'a-after', type: 'line' }));
    await pollUntil(async () => ids(await exported(boardId, owner)).includes('a-after'), 5000);
    expect(ids(await exported(boardId, owner))).not.toContain('b-after');
    expect(ids(await sceneOf(a))).not.toContain('b-after');
    // The page itself still shows its own edit: only the room refuses it.
    expect(ids(await sceneOf(b))).toContain('b-after');

    // Everyone leaves: the room stores its document; a fresh load reads what was stored.
    await Promise.all(pages.splice(0).map((p) => p.close()));
    await pollUntil(async () => ids(await stored(boardId)).includes('a-after'), 15_000);
    const fresh = await joined(boardId, alice);
    const shown = await sceneOf(fresh);
    expect(ids(shown).sort()).toEqual(['a-after', 'b-before', 'seed']);
    expect(await exported(boardId, owner)).toEqual(shown);
    expect(await stored(boardId)).toEqual(shown);
  });

  it('a version restored by the owner replaces the scene on both editing pages, and the export over /v1 is that scene', async () => {
    const owner = await signIn(server.url);
    const [alice, bob] = [await signIn(server.url), await signIn(server.url)];
    const boardId = await boardWithEditors(owner, [alice, bob]);
    const a = await joined(boardId, alice);
    const b = await joined(boardId, bob);
    await a.evaluate(() => window.room.addElement({ id: 'kept', type: 'ellipse', x: 1, y: 2 }));
    // The room's first store (2 s debounce) takes the board's first version.
    let versions: { versionId: string }[] = [];
    await pollUntil(async () => {
      const r = await api(server.url, 'GET', `${BOARDS}/${boardId}/versions`, undefined, owner.auth);
      versions = r.body.versions;
      return versions.length > 0;
    }, 10_000);
    expect(versions).toHaveLength(1);
    await pollUntil(async () => ids(await sceneOf(b)).includes('kept'), 5000);

    await a.evaluate(() => window.room.addElement({ id: 'later-a', type: 'line' }));
    await b.evaluate(() => window.room.addElement({ id: 'later-b', type: 'text', text: 'gone soon' }));
    await pollUntil(async () => (await sceneOf(a)).elements.length === 4 && (await sceneOf(b)).elements.length === 4, 5000);
    expect(ids(await sceneOf(a)).sort()).toEqual(['kept', 'later-a', 'later-b', 'seed']);

    const r = await api(server.url, 'POST', `${BOARDS}/${boardId}/versions/${versions[0]!.versionId}/restore`, undefined, owner.auth);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await pollUntil(async () => (await sceneOf(a)).elements.length === 2 && (await sceneOf(b)).elements.length === 2, 5000);
    const shown = await sceneOf(a);
    expect(ids(shown).sort()).toEqual(['kept', 'seed']);
    expect(shown.elements.find((e) => e.id === 'kept')).toEqual({ id: 'kept', type: 'ellipse', x: 1, y: 2 });
    expect(shown.version).toBe(3);
    expect(await sceneOf(b)).toEqual(shown);
    expect(await exported(boardId, owner)).toEqual(shown);
    // Neither page lost its connection: the restore came as an edit.
    for (const page of [a, b]) expect(await page.evaluate(() => window.room.state())).toMatchObject({ closes: [], authenticated: true });
  }, 40_000);
});
