import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

/**
 * Issue 16, class 0: a client that trickles its headers or its body must not hold a
 * connection (and a request slot) for ever. The deadlines are shortened here so the test
 * is quick; the defaults are checked from the configuration.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp({ env: { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' } });
});
afterAll(async () => {
  await server.close();
});

/** Opens a raw connection, writes `first`, then one byte a second (`trickle`); resolves with what came back once closed, and after how many bytes. */
function trickle(first: string, trickleText: string, maxMs: number): Promise<{ response: string; sentAfter: number; closed: boolean }> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), '127.0.0.1');
    let response = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => finish(false), maxMs);
    function finish(closed: boolean) {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ response, sentAfter: sent, closed });
    }
    socket.on('data', (d) => (response += String(d)));
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      socket.write(first);
      timer = setInterval(() => {
        if (sent < trickleText.length) socket.write(trickleText[sent++] as string);
      }, 250);
    });
  });
}

describe('request deadlines', () => {
  it('cuts off a body trickled slowly, at the whole-request deadline, with 408', async () => {
    const body = JSON.stringify({ version: 'x'.repeat(200) });
    const head = `POST /v1/auth/terms/accept HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const r = await trickle(head, body, 10_000);
    expect(r.closed).toBe(true);
    expect(r.response).toMatch(/^HTTP\/1\.1 408/);
    // Cut off long before the body (200+ bytes at 4 a second) was complete.
    expect(r.sentAfter).toBeLessThan(body.length / 2);
  }, 15_000);

  it('cuts off headers trickled slowly, at the header deadline', async () => {
    const r = await trickle('GET /healthz HTTP/1.1\r\n', `X-Slow: ${'y'.repeat(200)}\r\n\r\n`, 10_000);
    expect(r.closed).toBe(true);
    expect(r.response).toMatch(/^HTTP\/1\.1 408/);
    expect(r.sentAfter).toBeLessThan(100);
  }, 15_000);

  it('still serves a client that sends at a normal pace', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('defaults to 10 s for headers and 30 s for the whole request', () => {
    const config = loadConfig({});
    expect(config.http.headersTimeoutMs).toBe(10_000);
    expect(config.http.requestTimeoutMs).toBe(30_000);
  });
});
