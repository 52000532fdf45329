import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/infra.ts';

describe('/readyz', () => {
  it('answers 503 naming the dependency that cannot be reached, and 200 again once it is back', async () => {
    const server = await startTestApp();
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

      server.store.redis!.disconnect();
      const down = await fetch(`${server.url}/readyz`);
      expect(down.status).toBe(503);
      expect(down.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await down.json()).toMatchObject({
        status: 503,
        code: 'NOT_READY',
        checks: { database: 'ok', redis: 'unreachable' },
      });
      // Liveness does not depend on dependencies: the process itself is fine.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

      await server.store.redis!.connect();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
