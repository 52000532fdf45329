import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

/**
 * Every path the spec names is served exactly as written, and nothing else: a colon in a
 * path is literal (the spec's custom methods, `:wallet`, `:validate`), never a parameter,
 * so a suffix glued onto a path reaches no operation.
 */
const SPEC_PATHS = [
  'GET /v1/auth/address-book-entries',
  'GET /v1/chain/flows',
  'GET /v1/collab/whiteboards',
  'GET /v1/layouts/{layout_id}',
  'GET /v1/orders/open',
  'GET /v1/rate-limits',
  'GET /v1/spot/trades',
  'GET /v1/trading/rate-limits',
  'GET /v1/transfers',
  'GET /v1/triggers',
  'GET /v1/triggers/{triggerId}',
  'GET /v1/triggers/{triggerId}/events',
  'POST /v1/auth/api-keys',
  'POST /v1/chain/deposit-addresses',
  'POST /v1/chain/trading-withdraws',
  'POST /v1/chain/trading-withdraws:wallet',
  'POST /v1/chart/drawings',
  'POST /v1/chart/layers',
  'POST /v1/layouts',
  'POST /v1/layouts/published',
  'POST /v1/orders',
  'POST /v1/orders/cancel',
  'POST /v1/orders/cancel-all-after',
  'POST /v1/orders/cancel-batch',
  'POST /v1/triggers',
];
/** Custom methods the spec leaves to us, spelled the same way. */
const OUR_COLON_PATHS = ['POST /v1/chain/withdraw-destinations:validate'];

const SPEC_FILE = path.resolve('../shared/spec/api-spec.md');
let server: RunningApp;
let doc: { paths: Record<string, Record<string, unknown>> };

beforeAll(async () => {
  server = await startTestApp();
  doc = await (await fetch(`${server.url}/v1/openapi.json`)).json();
}, 60_000);
afterAll(async () => server?.close());

/** Whether a documented operation's path template matches `target` (a parameter is a whole segment). */
const documentedMatch = (method: string, target: string) =>
  Object.entries(doc.paths).some(
    ([template, ops]) =>
      ops[method.toLowerCase()] !== undefined &&
      new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\/\{[^}]+\}/g, '/[^/]+')}$`).test(target),
  );
const concrete = (p: string) => p.replace(/\{[^}]+\}/g, '1');
const send = (method: string, p: string) =>
  fetch(`${server.url}${p}`, { method, headers: { 'content-type': 'application/json' }, ...(method === 'GET' ? {} : { body: '{}' }) });

describe('routes are the spec\'s paths, exactly', () => {
  it.runIf(existsSync(SPEC_FILE))('lists every path the spec gives', () => {
    const inSpec = new Set(readFileSync(SPEC_FILE, 'utf8').match(/(GET|POST|PUT|DELETE|PATCH) \/v1\/[A-Za-z0-9_/{}:.-]+/g));
    expect([...inSpec].sort()).toEqual([...SPEC_PATHS].sort());
  });

  it.each([...SPEC_PATHS, ...OUR_COLON_PATHS])('%s is served and documented literally', async (line) => {
    const [method, p] = line.split(' ') as [string, string];
    expect(doc.paths[p]?.[method.toLowerCase()], `${line} in /v1/openapi.json`).toBeDefined();
    const res = await send(method, concrete(p));
    // Unauthenticated: the operation exists (it asks for credentials, or is public).
    expect([200, 401]).toContain(res.status);
  });

  it.each([...SPEC_PATHS, ...OUR_COLON_PATHS])('%s with a suffix glued on is 404', async (line) => {
    const [method, p] = line.split(' ') as [string, string];
    for (const suffix of ['XYZ', ':other', '::wallet', '-x']) {
      const target = concrete(p) + suffix;
      // Glued onto a segment where another operation takes an id, the suffix is that id.
      if (documentedMatch(method, target)) continue;
      const res = await send(method, target);
      expect(res.status, `${method} ${concrete(p)}${suffix}`).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('documents no path with a parameter glued to a literal', () => {
    for (const p of Object.keys(doc.paths)) expect(p).not.toMatch(/[^/]\{/);
  });
});
