import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { isResync, markCritical, markLocal, RESYNC } from '../../src/infra/eventBus.ts';
import { openSharedStore, type SharedStore } from '../../src/infra/redis.ts';
import { RedisServer } from '../helpers/redisServer.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * The event bus across two processes' stores on a Redis of the test's own, which the test
 * kills and restarts: publishing never throws, this process's listeners get its events at
 * once, and other processes get them in order once Redis is back, or a resync.
 */
let redis: RedisServer;
const stores: SharedStore[] = [];
beforeAll(async () => {
  redis = await RedisServer.start();
});
afterAll(async () => {
  for (const s of stores) await s.close();
  await redis.kill();
});

async function store(outboxLimit?: number) {
  const s = await openSharedStore({ kind: 'redis', url: redis.url, keyPrefix: 'bus:' }, outboxLimit ? { outboxLimit } : {});
  stores.push(s);
  return s;
}

function listen(s: SharedStore, topic: string) {
  const got: unknown[] = [];
  s.events.addEventListener(topic, (e: CustomEvent) => got.push(e.detail));
  return got;
}

const publish = (s: SharedStore, topic: string, detail: unknown) => s.events.dispatchEvent(new CustomEvent(topic, { detail }));

describe('the Redis event bus', () => {
  it('delivers to its own listeners at once and to other processes in order, each once', async () => {
    const [a, b] = [await store(), await store()];
    const mine = listen(a, 't1');
    const theirs = listen(b, 't1');
    await pollUntil(async () => (await b.redis!.pubsub('NUMSUB', 't1'))[1] === 2, 2_000);
    for (let i = 1; i <= 50; i++) publish(a, 't1', { i, big: BigInt(i) });
    expect(mine.map((m) => (m as { i: number }).i)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await pollUntil(() => theirs.length >= 50, 2_000);
    expect(theirs).toEqual(mine);
  });

  it('survives Redis being killed: publishing never throws, local listeners keep getting events, others get them in order once it is back', async () => {
    const [a, b] = [await store(), await store()];
    const mine = listen(a, 't2');
    const theirs = listen(b, 't2');
    await pollUntil(async () => (await b.redis!.pubsub('NUMSUB', 't2'))[1] === 2, 2_000);
    publish(a, 't2', 1);
    await pollUntil(() => theirs.length === 1, 2_000);
    await redis.kill();
    await pollUntil(() => a.redis!.status !== 'ready', 2_000);
    for (let i = 2; i <= 20; i++) expect(publish(a, 't2', i)).toBe(true);
    expect(mine).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await new Promise((r) => setTimeout(r, 300));
    expect(theirs).toEqual([1]);
    await redis.up();
    await pollUntil(() => theirs.length === 20, 8_000);
    expect(theirs).toEqual(mine);
  }, 20_000);

  it('tells other processes to resync when it had to drop messages during an outage', async () => {
    const [a, b] = [await store(3), await store()];
    listen(a, 't3');
    const theirs = listen(b, 't3');
    await pollUntil(async () => (await b.redis!.pubsub('NUMSUB', 't3'))[1] === 2, 2_000);
    publish(a, 't3', 1);
    await pollUntil(() => theirs.length === 1, 2_000);
    await redis.kill();
    await pollUntil(() => a.redis!.status !== 'ready', 2_000);
    for (let i = 2; i <= 10; i++) publish(a, 't3', i);
    await redis.up();
    await pollUntil(() => theirs.length >= 5, 8_000);
    // 2..7 were dropped from the outbox (3 kept): the receiver sees the gap.
    expect(theirs[1]).toBe(RESYNC);
    expect(isResync(theirs[1])).toBe(true);
    expect(theirs.slice(2)).toEqual([8, 9, 10]);
  }, 20_000);

  it('a critical topic keeps an outbox of its own: an overflow of other topics never drops its messages', async () => {
    const [a, b] = [await store(3), await store()];
    markCritical(a.events, 'crit4');
    listen(a, 'crit4');
    listen(a, 't4');
    const critical = listen(b, 'crit4');
    const other = listen(b, 't4');
    await pollUntil(async () => (await b.redis!.pubsub('NUMSUB', 'crit4'))[1] === 2 && (await b.redis!.pubsub('NUMSUB', 't4'))[1] === 2, 2_000);
    publish(a, 'crit4', 0);
    publish(a, 't4', 0);
    await pollUntil(() => critical.length === 1 && other.length === 1, 2_000);
    await redis.kill();
    await pollUntil(() => a.redis!.status !== 'ready', 2_000);
    publish(a, 'crit4', 1);
    for (let i = 1; i <= 10; i++) publish(a, 't4', i);
    publish(a, 'crit4', 2);
    await redis.up();
    await pollUntil(() => critical.includes(2) && other.length >= 5, 8_000);
    expect(critical).toEqual([0, 1, 2]);
    expect(other[1]).toBe(RESYNC);
    expect(other.slice(2)).toEqual([8, 9, 10]);
  }, 20_000);

  it('a local topic reaches only its own process: nothing is published to Redis, and listening to it subscribes to nothing there', async () => {
    const [a, b] = [await store(), await store()];
    markLocal(a.events, 'loc:');
    markLocal(b.events, 'loc:');
    // What reaches Redis, seen from outside: every channel of the test's Redis.
    const spy = new Redis(redis.url);
    const seen: string[] = [];
    spy.on('pmessage', (_pattern: string, channel: string) => seen.push(channel));
    await spy.psubscribe('*');
    try {
      const mine = listen(a, 'loc:x');
      const theirs = listen(b, 'loc:x');
      const control = listen(b, 'shared6');
      await pollUntil(async () => (await b.redis!.pubsub('NUMSUB', 'shared6'))[1] === 1, 2_000);
      expect((await b.redis!.pubsub('NUMSUB', 'loc:x'))[1]).toBe(0);
      publish(a, 'loc:x', 1);
      publish(a, 'loc:x', 2);
      expect(mine).toEqual([1, 2]);
      // The control goes through Redis after the local messages: once it has arrived, they would have.
      publish(a, 'shared6', 'after');
      await pollUntil(() => control.length === 1, 2_000);
      expect(theirs).toEqual([]);
      expect(seen).toEqual(['shared6']);
    } finally {
      spy.disconnect();
    }
  });

  it('a process whose subscription was down tells the listeners of its critical topics to resync (what was published meanwhile is gone), and only those', async () => {
    const b = await store();
    markCritical(b.events, 'crit5');
    const critical = listen(b, 'crit5');
    const other = listen(b, 't5');
    await pollUntil(async () => (await b.redis!.pubsub('NUMSUB', 'crit5'))[1] === 1, 2_000);
    await redis.kill();
    await pollUntil(() => b.redis!.status !== 'ready', 2_000);
    await redis.up();
    await pollUntil(() => critical.length > 0, 8_000);
    expect(critical).toEqual([RESYNC]);
    expect(other).toEqual([]);
  }, 20_000);
});
