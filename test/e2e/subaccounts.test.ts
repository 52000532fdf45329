import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { startTestApp, uniqueName, type RunningApp } from '../helpers/infra.ts';
import { trader } from '../helpers/trading.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('the subaccount cap', () => {
  it('holds under concurrent creations: 30 at once with room for 5 create exactly 5', async () => {
    const owner = await trader(server.url, {});
    const root = await server.database.prisma.account.findUniqueOrThrow({ where: { publicId: owner.rootAccountId } });
    await server.database.prisma.account.createMany({
      data: Array.from({ length: 195 }, (_, i) => ({ publicId: uniqueName('s'), kind: 'SUBACCOUNT' as const, rootAccountId: root.id, label: `pre-${i}` })),
    });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => api(server.url, 'POST', '/v1/auth/subaccounts', { label: `race-${i}` }, owner.auth)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body.violations[0]).toMatchObject({ ruleId: 'max-subaccounts' });
    }
    expect(await server.database.prisma.account.count({ where: { rootAccountId: root.id, kind: 'SUBACCOUNT' } })).toBe(200);
  });
});
