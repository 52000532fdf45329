import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

/**
 * What a newcomer opens in a browser: the API reference at /docs and GraphiQL at /graphql,
 * in Debian's headless Chromium. Every request the pages make must stay on the service's
 * origin: the machines that run it have no internet.
 */
let server: RunningApp;
let browser: Browser;
let page: Page;
const outside: string[] = [];

beforeAll(async () => {
  server = await startTestApp();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage();
  const origin = new URL(server.url).origin;
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('blob:') && !url.startsWith('data:')) outside.push(url);
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the API reference and GraphiQL in headless Chromium', () => {
  it('/docs renders /v1/openapi.json and finds createOrder with its error responses', async () => {
    await page.goto(`${server.url}/docs`);
    // Redoc gives each operation a section whose id is its deep link: tag/<Tag>/operation/<operationId>.
    const operation = page.locator('[data-section-id$="/operation/createOrder"]').first();
    await operation.waitFor({ timeout: 30_000 });
    expect(await operation.getAttribute('data-section-id')).toBe('tag/Trading/operation/createOrder');
    const text = await operation.innerText();
    expect(text).toContain('/v1/orders');
    for (const status of ['400', '401', '429', '503']) expect(text).toContain(status);
    expect(await page.locator('[data-section-id="tag/Operator"]').count()).toBeGreaterThan(0);
    expect(outside).toEqual([]);
  }, 90_000);

  it('GraphiQL at /graphql runs a query', async () => {
    await page.goto(`${server.url}/graphql`, { waitUntil: 'load' });
    const editor = page.locator('.graphiql-query-editor .monaco-editor, .graphiql-query-editor .CodeMirror').first();
    await editor.waitFor({ timeout: 30_000 });
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ rateLimits { policyVersion } }');
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.graphiql-response');
    await expect.poll(async () => result.innerText(), { timeout: 30_000 }).toMatch(/"policyVersion":\s*"1"/);
    expect(outside).toEqual([]);
  }, 90_000);
});
