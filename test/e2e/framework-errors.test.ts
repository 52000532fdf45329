import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

/**
 * Errors raised below the routes (Node's HTTP parser, Fastify's router) are answered in
 * the same problem+json form as every other error, with a `code`.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

/** Sends bytes as they are (no client normalises the target) and reads the whole answer. */
function rawRequest(bytes: Buffer | string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const status = Number(statusLine.split(' ')[1]);
      if (!status) reject(new Error(`no answer: ${JSON.stringify(text.slice(0, 200))}`));
      else resolve({ status, headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(bytes);
    // Half-close after sending so every answer ends the exchange.
    setTimeout(() => socket.end(), 200);
  });
}

function expectProblem(r: { status: number; headers: Record<string, string>; body: string }, status: number, code: string) {
  expect(r.status, r.body).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(r.body);
  expect(body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
}

describe('errors below the routes', () => {
  it('a malformed percent-encoding in the path is a 400 problem', async () => {
    expectProblem(await rawRequest('GET /v1/orders/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 400, 'MALFORMED_URL');
  });

  it('a path parameter longer than the router keeps is a 414 problem', async () => {
    expectProblem(await rawRequest(`GET /v1/orders/${'a'.repeat(600)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 414, 'URI_TOO_LONG');
  });

  it('a raw non-ASCII byte in the request target is a 400 problem', async () => {
    const r = await rawRequest(Buffer.concat([Buffer.from('GET /v1/orders/'), Buffer.from([0xff, 0xfe]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]));
    expectProblem(r, 400, 'MALFORMED_REQUEST');
  });

  it('a request line over the header limit is a 431 problem with a body', async () => {
    const r = await rawRequest(`GET /v1/orders/x?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectProblem(r, 431, 'HEADERS_TOO_LARGE');
  });

  it('headers over the limit are a 431 problem', async () => {
    const r = await rawRequest(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expectProblem(r, 431, 'HEADERS_TOO_LARGE');
  });

  it('a request that is not HTTP is a 400 problem', async () => {
    expectProblem(await rawRequest('HELLO THERE\r\n\r\n'), 400, 'MALFORMED_REQUEST');
  });

  it('none of them logs at error level', () => {
    const errors = server.logs.map((l) => JSON.parse(l) as { level: number }).filter((l) => l.level >= 50);
    expect(errors).toEqual([]);
  });
});
