import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { bytes, int32, int64, queryInt, toInt64 } from '../../src/transport/rest/codec.ts';
import { defineRoute } from '../../src/transport/rest/route.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

/**
 * The /v1 conventions of spec 2.1 and 7, shared by every route, exercised through
 * fixture routes built with the same route helper as the real table.
 */
const fixtures = [
  defineRoute({
    operationId: 'fixtureEcho',
    method: 'POST',
    url: '/v1/fixture/echo',
    summary: 'echoes a parsed body',
    auth: 'public',
    body: z.strictObject({
      name: z.string().min(1).max(64),
      qty: int64(),
      count: int32(),
      side: z.enum(['BUY', 'SELL']),
      key: bytes(32).optional(),
      items: z.array(z.strictObject({ orderId: z.string() })).max(50).optional(),
    }),
    handler: async ({ body }) => ({ name: body.name, qty: toInt64(body.qty * 2n), count: body.count, side: body.side }),
  }),
  defineRoute({
    operationId: 'fixtureList',
    method: 'GET',
    url: '/v1/fixture/list',
    summary: 'reads a bounded query',
    auth: 'public',
    query: z.strictObject({ limit: queryInt(1, 500).optional() }),
    handler: async ({ query }) => ({ limit: query.limit ?? 100 }),
  }),
  defineRoute({
    operationId: 'fixtureMissing',
    method: 'GET',
    url: '/v1/fixture/missing/:id',
    summary: 'always not found',
    auth: 'public',
    params: z.object({ id: z.string() }),
    handler: async ({ params }) => {
      throw new ApiError('not-found', `thing ${params.id} not found`, { code: 'ORDER_NOT_FOUND' });
    },
  }),
  defineRoute({
    operationId: 'fixtureBroken',
    method: 'GET',
    url: '/v1/fixture/broken',
    summary: 'fails unexpectedly',
    auth: 'public',
    handler: async () => {
      throw new Error('database password is hunter2');
    },
  }),
];

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp({ extraRoutes: fixtures, env: { BODY_LIMIT_BYTES: '2048' } });
});
afterAll(async () => {
  await server?.close();
});

const valid = { name: 'a', qty: '4611686018427387903', count: 7, side: 'BUY' };

async function post(body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  return fetch(`${server.url}/v1/fixture/echo`, { method: 'POST', body, headers });
}

async function expectProblem(res: Response, status: number, key: string, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({
    type: `https://errors.spot.example/problems/${key}`,
    status,
    code,
    requestId: res.headers.get('x-request-id'),
  });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body as { violations?: { fieldPath: string; message: string; ruleId: string }[] } & Record<string, unknown>;
}

async function expectInvalid(res: Response, fieldPath: string, ruleId: string) {
  const body = await expectProblem(res, 400, 'invalid-argument', 'BAD_REQUEST');
  expect(body.title).toBe('Invalid Argument');
  expect(body.violations).toContainEqual({ fieldPath, message: expect.any(String), ruleId });
}

describe('/v1 request codec', () => {
  it('parses int64 strings exactly and answers them as strings', async () => {
    const res = await post(JSON.stringify(valid));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'a', qty: '9223372036854775806', count: 7, side: 'BUY' });
  });

  it('answers malformed JSON with 400 naming the body', async () => {
    await expectInvalid(await post('{"name": "a", '), 'body', 'json');
  });

  it('answers a missing body with 400', async () => {
    await expectInvalid(await post(''), 'body', 'required');
  });

  it('answers wrong types with 400 naming the field', async () => {
    await expectInvalid(await post(JSON.stringify({ ...valid, qty: 5 })), 'qty', 'type');
    await expectInvalid(await post(JSON.stringify({ ...valid, name: 1 })), 'name', 'type');
  });

  it('answers unknown enum values with 400 naming the field', async () => {
    await expectInvalid(await post(JSON.stringify({ ...valid, side: 'HOLD' })), 'side', 'enum');
  });

  it('answers out-of-range numbers with 400 naming the field', async () => {
    await expectInvalid(await post(JSON.stringify({ ...valid, count: 2 ** 31 })), 'count', 'max');
    await expectInvalid(await post(JSON.stringify({ ...valid, qty: '9223372036854775808' })), 'qty', 'int64-range');
  });

  it('names nested fields by their path', async () => {
    const body = { ...valid, items: [{ orderId: 'x' }, { orderId: 3 }] };
    await expectInvalid(await post(JSON.stringify(body)), 'items[1].orderId', 'type');
  });

  it('refuses unknown fields, so a misspelt option is never silently ignored', async () => {
    await expectInvalid(await post(JSON.stringify({ ...valid, postonly: true })), 'postonly', 'unknown-field');
  });

  it('names a missing required field', async () => {
    const { qty: _qty, ...rest } = valid;
    await expectInvalid(await post(JSON.stringify(rest)), 'qty', 'required');
  });

  it('checks the length of bytes fields', async () => {
    await expectInvalid(await post(JSON.stringify({ ...valid, key: 'AAAA' })), 'key', 'bytes-length');
  });

  it('refuses prototype poisoning', async () => {
    const res = await post('{"__proto__": {"admin": true}, "name": "a"}');
    await expectProblem(res, 400, 'invalid-argument', 'BAD_REQUEST');
  });

  it('validates query parameters the same way', async () => {
    expect(await (await fetch(`${server.url}/v1/fixture/list?limit=500`)).json()).toEqual({ limit: 500 });
    await expectInvalid(await fetch(`${server.url}/v1/fixture/list?limit=501`), 'limit', 'max');
    await expectInvalid(await fetch(`${server.url}/v1/fixture/list?limit=ten`), 'limit', 'format');
  });
});

describe('/v1 error bodies', () => {
  it('answers a body over the limit with 413 in the problem form', async () => {
    const res = await post(JSON.stringify({ ...valid, name: 'x'.repeat(4096) }));
    await expectProblem(res, 413, 'payload-too-large', 'PAYLOAD_TOO_LARGE');
  });

  it('answers an unknown route with 404 in the problem form', async () => {
    const res = await fetch(`${server.url}/v1/no/such/route?x=1`);
    const body = await expectProblem(res, 404, 'not-found', 'ROUTE_NOT_FOUND');
    expect(body.detail).toBe('no route for GET /v1/no/such/route');
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await post('name=a', { 'content-type': 'application/x-www-form-urlencoded' });
    await expectProblem(res, 415, 'unsupported-media-type', 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('renders service errors with their own code', async () => {
    const res = await fetch(`${server.url}/v1/fixture/missing/abc`);
    const body = await expectProblem(res, 404, 'not-found', 'ORDER_NOT_FOUND');
    expect(body.detail).toBe('thing abc not found');
  });

  it('answers unexpected failures with a 500 that reveals nothing', async () => {
    const res = await fetch(`${server.url}/v1/fixture/broken`);
    const body = await expectProblem(res, 500, 'internal', 'INTERNAL');
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });
});

describe('request ids, metrics, logs', () => {
  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const given = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'client-req.42' } });
    expect(given.headers.get('x-request-id')).toBe('client-req.42');
    const bad = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'a b;c' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('counts requests and latencies per operation', async () => {
    await post(JSON.stringify(valid));
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/http_requests_total\{operation="fixtureEcho",method="POST",status="200"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_count\{operation="fixtureEcho",method="POST"\} \d+/);
    expect(text).toMatch(/http_requests_total\{operation="unmatched",method="GET",status="404"\} \d+/);
  });

  it('logs each request with its id and never a credential', async () => {
    const secrets = ['Bearer sess_topsecret_value', 'c2lnbmF0dXJlLXNlY3JldA==', 'cookie-secret'];
    await fetch(`${server.url}/v1/fixture/broken`, {
      headers: { authorization: secrets[0]!, 'x-api-signature': secrets[1]!, cookie: secrets[2]!, 'x-request-id': 'log-check-1' },
    });
    const lines = server.logs.join('');
    expect(lines).toContain('"requestId":"log-check-1"');
    for (const s of secrets) expect(lines).not.toContain(s);
  });

  it('publishes an OpenAPI document generated from the route schemas', async () => {
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(doc.paths['/v1/fixture/echo']).toBeDefined();
  });
});

describe('health', () => {
  it('answers liveness and readiness', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok', tradingEngine: 'ok' } });
  });
});
