import { describe, expect, it } from 'vitest';
import { defineRoute } from '../../src/transport/rest/route.ts';
import { startTestApp } from '../helpers/infra.ts';

describe('graceful shutdown', () => {
  it('finishes in-flight requests, refuses new work, then closes the database and Redis', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const server = await startTestApp({
      ownInfra: true,
      extraRoutes: [
        defineRoute({
          operationId: 'fixtureSlow',
          method: 'GET',
          url: '/v1/fixture/slow',
          summary: 'waits for the test',
          auth: 'public',
          handler: async () => {
            entered();
            await gate;
            return { done: true };
          },
        }),
      ],
    });

    const inFlight = fetch(`${server.url}/v1/fixture/slow`);
    await inside;
    const closing = server.app.close();
    await new Promise((r) => setTimeout(r, 50));
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closing;
    await expect(server.database.ping()).rejects.toThrow();
    await expect(server.store.ping()).rejects.toThrow();
    await server.close();
  });
});
