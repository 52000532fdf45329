import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { BOARDS, createBoard, openRoom, outcome, texts, type Room } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * A real browser in a room: test/browser/room-page.ts (yjs + @hocuspocus/provider) bundled
 * by esbuild, run in Debian's headless Chromium through playwright-core, against the
 * whole service, with a Node provider in the same room.
 */
let server: RunningApp;
let browser: Browser;
let page: Page;
let bundle: string;
const rooms: Room[] = [];

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
  page = await browser.newPage();
  // Served by the service's own origin is not needed: a WebSocket has no CORS.
  await page.setContent(`<!doctype html><html><body><script>${bundle}</script></body></html>`);
}, 60_000);

afterAll(async () => {
  for (const room of rooms.splice(0)) room.destroy();
  await browser?.close();
  await server?.close();
});

describe('a whiteboard room in headless Chromium', () => {
  it('edits made in the browser reach a Node provider, and the reverse', async () => {
    const owner = await signIn(server.url);
    const editor = await signIn(server.url);
    const { board } = await createBoard(server.url, owner, { title: 'browser' });
    await api(server.url, 'PUT', `${BOARDS}/${board.boardId}/members/${editor.rootAccountId}`, { role: 'EDITOR' }, owner.auth);
    const wsUrl = `${server.url.replace(/^http/, 'ws')}/collab`;
    await page.evaluate(([url, id, token]) => window.room.open(url!, id!, token!), [wsUrl, board.boardId, editor.token]);
    expect(await page.evaluate(() => window.room.scope())).toBe('read-write');

    const node = openRoom(server.url, board.boardId, owner.token);
    rooms.push(node);
    expect(await outcome(node)).toBe('synced');

    await page.evaluate(() => window.room.set('from-browser', 'hello from chromium'));
    await pollUntil(() => texts(node).has('from-browser'), 5000);
    expect(texts(node).get('from-browser')).toBe('hello from chromium');

    texts(node).set('from-node', 'hello from node');
    await pollUntil(async () => (await page.evaluate(() => window.room.get('from-node'))) !== undefined, 5000);
    expect(await page.evaluate(() => window.room.get('from-node'))).toBe('hello from node');
  });
});
