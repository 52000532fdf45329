import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/transport/openapiDocument.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

/**
 * /v1/openapi.json is built from the route table; these checks hold for every route, so a
 * route added without its documentation fails here. The client's checked-in document and
 * types must be what `npm run client:generate` writes today.
 */
const run = promisify(execFile);
const bin = (name: string) => path.resolve('node_modules/.bin', name);
let doc: any;
let dir: string;
let server: RunningApp;

beforeAll(async () => {
  doc = await openApiDocument();
  dir = await mkdtemp(path.join(tmpdir(), 'sx-openapi-'));
  server = await startTestApp();
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await server?.close();
});

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([url, item]) =>
    Object.entries(item).map(([method, op]) => ({ url, method, op })),
  );

describe('/v1/openapi.json', () => {
  it('is what the running service serves', async () => {
    const served = await (await fetch(`${server.url}/v1/openapi.json`)).json();
    expect(served).toEqual(doc);
  });

  it('passes `redocly lint` (recommended ruleset) with no error and no warning', async () => {
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const out = await run(bin('redocly'), ['lint', file, '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((err: { stdout: string }) => err);
    const report = JSON.parse(out.stdout.slice(out.stdout.indexOf('{')));
    expect(report.problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  }, 60_000);

  it('is OpenAPI 3.1 with servers, and every operation has a lowerCamelCase operationId, a summary, one tag and its security', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers.length).toBeGreaterThan(0);
    const ops = operations();
    expect(ops.length).toBeGreaterThan(60);
    for (const { op } of ops) {
      expect(op.operationId).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(op.summary).toBeTruthy();
      expect(op.tags).toHaveLength(1);
      expect(Array.isArray(op.security)).toBe(true);
    }
    const byId = Object.fromEntries(ops.map((o) => [o.op.operationId, o]));
    expect(byId.createOrder).toMatchObject({ url: '/v1/orders', method: 'post', op: { tags: ['Trading'] } });
    expect(byId.getRateLimitConfig!.op.security).toEqual([]);
    expect(byId.createOrder!.op.security).toEqual([{ session: [] }, { apiKeyId: [], apiKeyTimestamp: [], apiKeySignature: [] }]);
    // Operator routes are set apart by their tag and their own credential.
    for (const { url, op } of ops.filter((o) => o.url.startsWith('/operator/'))) {
      expect(op.tags, url).toEqual(['Operator']);
      expect(op.security).toEqual([{ operatorToken: [] }]);
    }
  });

  it('documents every error an operation can give as problem+json, 429 with its five headers', () => {
    for (const { op } of operations()) {
      for (const status of ['400', '401', '503']) expect(op.responses[status], `${op.operationId} ${status}`).toBeDefined();
      if (op.security.some((s: Record<string, unknown>) => 'session' in s)) expect(op.responses['403']).toBeDefined();
      if (op.requestBody) for (const status of ['413', '415']) expect(op.responses[status], `${op.operationId} ${status}`).toBeDefined();
      if (!op.tags.includes('Operator')) expect(op.responses['429'], op.operationId).toBeDefined();
    }
    const tooMany = doc.components.responses.RateLimitExceeded;
    expect(Object.keys(tooMany.headers)).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'X-Service-RateLimit-Policy-Version']);
    for (const response of Object.values(doc.components.responses) as any[]) {
      expect(response.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    }
  });

  it('gives examples for the order variants and API policies', () => {
    const examples = (url: string, method: string) => doc.paths[url][method].requestBody.content['application/json'].examples;
    expect(Object.keys(examples('/v1/orders', 'post')).length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(examples('/v1/auth/api-policies', 'post')).length).toBeGreaterThanOrEqual(1);
  });
});

describe('the client in client/', () => {
  it('is generated from the current document (`npm run client:generate`)', async () => {
    expect(JSON.parse(await readFile('client/openapi.json', 'utf8'))).toEqual(doc);
    const fresh = path.join(dir, 'schema.ts');
    await run(bin('openapi-typescript'), ['client/openapi.json', '-o', fresh]);
    expect(await readFile('client/schema.ts', 'utf8'), 'client/schema.ts is stale: run `npm run client:generate`').toBe(await readFile(fresh, 'utf8'));
  }, 60_000);
});
