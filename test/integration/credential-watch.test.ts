import { afterAll, describe, expect, it } from 'vitest';
import type { ApiKeyCaller, Caller, Permission } from '../../src/auth/caller.ts';
import { CredentialWatch, type CredentialState } from '../../src/auth/credentialWatch.ts';
import { RESYNC } from '../../src/infra/eventBus.ts';
import { openSharedStore, type SharedStore } from '../../src/infra/redis.ts';
import { TEST_REDIS_URL } from '../helpers/env.ts';
import { uniqueName } from '../helpers/infra.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Credential changes cross processes over Redis pub/sub: two stores stand for two API
 * processes; a change published by one reaches the connections the other follows.
 */
const stores: SharedStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

const caller = (permissions: Permission[]): ApiKeyCaller => ({
  kind: 'apiKey',
  rootAccountId: 1n,
  rootPublicId: 'root',
  keyId: 'ak_test',
  keyDbId: 1n,
  permissions: new Set(permissions),
});

/** A stand-in for the keys table, read back by `inspect` (after `gate` opens). */
function table() {
  const rows = new Map<string, { permissions: Permission[]; revoked: boolean }>([['ak_test', { permissions: ['READ'], revoked: false }]]);
  let gate: Promise<void> = Promise.resolve();
  return {
    rows,
    hold() {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      return open;
    },
    async inspect(c: Caller): Promise<CredentialState> {
      await gate;
      const row = rows.get((c as ApiKeyCaller).keyId);
      if (!row || row.revoked) throw new Error('revoked');
      return { caller: { ...(c as ApiKeyCaller), permissions: new Set(row.permissions) }, expiresAtMs: undefined };
    },
  };
}

async function apiProcess(prefix: string, keys: ReturnType<typeof table>) {
  const store = await openSharedStore({ kind: 'redis', url: TEST_REDIS_URL, keyPrefix: prefix });
  stores.push(store);
  const changes: unknown[] = [];
  const watch = new CredentialWatch({
    events: store.events,
    topic: `${prefix}credentials`,
    inspect: (c) => keys.inspect(c),
    onChange: (c) => void changes.push(c),
    onResync: () => void changes.push('resync'),
    now: () => Date.now(),
  });
  return { store, watch, changes };
}

describe('credential changes across processes', () => {
  it('a change published by one process reloads the other’s connections; current() waits for the reload', async () => {
    const prefix = `${uniqueName('cw')}:`;
    const keys = table();
    const a = await apiProcess(prefix, keys);
    const b = await apiProcess(prefix, keys);
    await pollUntil(async () => (await b.store.redis!.pubsub('NUMSUB', `${prefix}credentials`))[1] === 2, 2_000);
    const live = b.watch.watch({ caller: caller(['READ']), expiresAtMs: undefined }, '10.0.0.1');
    // Each notification records whether the change had been read back (`settled`) then.
    const notified: boolean[] = [];
    live.onChange(() => notified.push(live.settled));

    keys.rows.set('ak_test', { permissions: ['TRADE'], revoked: false });
    const open = keys.hold();
    a.watch.changed({ apiKey: 'ak_test' });
    await pollUntil(() => b.changes.length === 1, 2_000);
    expect(b.changes).toEqual([{ apiKey: 'ak_test' }]);
    // The reload is held: the old permissions must not be answered meanwhile.
    let answered: Caller | undefined | 'pending' = 'pending';
    void live.current().then((c) => (answered = c));
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe('pending');
    // The arrival is told at once (a room turns read-only on it), before the read-back.
    expect(notified).toEqual([false]);
    open();
    await pollUntil(() => answered !== 'pending', 1_000);
    expect([...((answered as unknown as ApiKeyCaller).permissions)]).toEqual(['TRADE']);
    expect(notified).toEqual([false, true]);

    keys.rows.set('ak_test', { permissions: ['READ'], revoked: true });
    a.watch.changed({ apiKey: 'ak_test' });
    await pollUntil(() => live.dead, 2_000);
    expect(await live.current()).toBeUndefined();
    expect(notified).toEqual([false, true, false, true]);
    live.release();
    expect(b.watch.size).toBe(0);
  });

  it('an expiry closes a connection by its own timer, with no change published', async () => {
    const prefix = `${uniqueName('cw')}:`;
    const b = await apiProcess(prefix, table());
    const live = b.watch.watch({ caller: caller(['READ']), expiresAtMs: Date.now() + 150 }, '10.0.0.1');
    let notified = 0;
    live.onChange(() => notified++);
    expect(await live.current()).toBeDefined();
    await pollUntil(() => notified === 1, 2_000);
    expect(await live.current()).toBeUndefined();
    live.release();
  });

  it('a gap in the changes (the bus lost some) reloads every open credential at once: a revocation that never arrived still closes', async () => {
    const prefix = `${uniqueName('cw')}:`;
    const keys = table();
    const b = await apiProcess(prefix, keys);
    const revoked = b.watch.watch({ caller: caller(['READ']), expiresAtMs: undefined }, '10.0.0.1');
    const other = b.watch.watch({ caller: { ...caller(['READ']), keyId: 'ak_other' }, expiresAtMs: undefined }, '10.0.0.2');
    keys.rows.set('ak_other', { permissions: ['READ'], revoked: false });
    keys.rows.set('ak_test', { permissions: ['READ'], revoked: true });
    // The revocation's message was lost: the bus reports the gap instead, as it does when
    // its subscription comes back or a sequence number is skipped.
    b.store.events.dispatchEvent(new CustomEvent(`${prefix}credentials`, { detail: RESYNC }));
    expect(b.changes).toEqual(['resync']);
    await pollUntil(() => revoked.dead, 2_000);
    expect(await revoked.current()).toBeUndefined();
    expect(other.dead).toBe(false);
    expect(await other.current()).toBeDefined();
    revoked.release();
    other.release();
  });
});
