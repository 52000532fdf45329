import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Publications, publicationListeners } from '../../src/services/publications.ts';
import { TEST_REDIS_URL } from '../helpers/env.ts';
import { testStore, uniqueName } from '../helpers/infra.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Committed events leave as one message per topic per group, and reach subscribers one
 * by one, in order: over real Redis pub/sub and over the in-process target of `npm start`.
 */
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

async function redisTarget() {
  const store = await testStore();
  cleanups.push(() => store.flush());
  return store.events;
}

/** Counts the messages the target carries, whatever they hold. */
function counted(target: TypedEventTarget<CustomEvent>) {
  let messages = 0;
  const dispatch = target.dispatchEvent.bind(target);
  target.dispatchEvent = (event) => {
    messages += 1;
    return dispatch(event);
  };
  return { target, messages: () => messages };
}

describe.each([
  ['in-process', async () => new EventTarget() as TypedEventTarget<CustomEvent>],
  ['Redis', redisTarget],
])('Publications over the %s event target', (_name, makeTarget) => {
  it('sends one message per topic for events published together, and delivers each event in order', async () => {
    const { target, messages } = counted(await makeTarget());
    const publications = new Publications<{ n: bigint }>(target);
    const topic = uniqueName('orders');
    const other = uniqueName('fills');
    const received: bigint[] = [];
    const otherReceived: bigint[] = [];
    const sub = publications.subscribe(topic);
    const otherSub = publications.subscribe(other);
    const reading = (async () => {
      for await (const e of sub) {
        received.push(e.n);
        if (received.length === 7) break;
      }
    })();
    const otherReading = (async () => {
      for await (const e of otherSub) {
        otherReceived.push(e.n);
        if (otherReceived.length === 2) break;
      }
    })();
    // Let both subscriptions reach the target (Redis SUBSCRIBE) before publishing.
    await new Promise((r) => setTimeout(r, 100));

    for (const n of [1n, 2n, 3n, 4n, 5n]) publications.publish(topic, { n });
    publications.publish(other, { n: 10n });
    await new Promise((r) => setImmediate(r));
    expect(messages()).toBe(2);
    publications.publish(topic, { n: 6n });
    publications.publish(topic, { n: 7n });
    publications.publish(other, { n: 11n });
    await Promise.all([reading, otherReading]);
    expect(messages()).toBe(4);
    expect(received).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    expect(otherReceived).toEqual([10n, 11n]);
  });

  it('lets go of the topic when a subscriber leaves while nothing arrives', async () => {
    const target = await makeTarget();
    const publications = new Publications<{ n: number }>(target);
    const topic = uniqueName('book');
    const redis = new Redis(TEST_REDIS_URL);
    cleanups.push(async () => redis.disconnect());
    const subscribers = async () => Number(((await redis.pubsub('NUMSUB', topic)) as [string, number])[1]);
    const sub = publications.subscribe(topic);
    const pending = sub.next();
    await new Promise((r) => setTimeout(r, 100));
    if (_name === 'Redis') expect(await subscribers()).toBe(1);
    await sub.return?.(undefined);
    await expect(pending).resolves.toMatchObject({ done: true });
    if (_name === 'Redis') {
      await pollUntil(async () => (await subscribers()) === 0, 2000);
      expect(await subscribers()).toBe(0);
    }
  });

  it('cuts off a subscriber that falls behind, by events, with SUBSCRIBER_TOO_SLOW, while the others and the publisher carry on', async () => {
    const target = await makeTarget();
    const publications = new Publications<{ n: number }>(target, { maxPendingEvents: 50, maxPendingBytes: 1 << 20 });
    const topic = uniqueName('book');
    const slow = publications.subscribe(topic);
    const fast = publications.subscribe(topic);
    const before = publicationListeners(target);
    const received: number[] = [];
    const reading = (async () => {
      for await (const e of fast) {
        received.push(e.n);
        if (received.length === 200) break;
      }
    })();
    await new Promise((r) => setTimeout(r, 100));
    // Flushed in batches of 20, so the fast reader keeps up between them.
    for (let batch = 0; batch < 10; batch++) {
      for (let i = 0; i < 20; i++) expect(() => publications.publish(topic, { n: batch * 20 + i })).not.toThrow();
      await new Promise((r) => setImmediate(r));
    }
    await reading;
    expect(received).toEqual(Array.from({ length: 200 }, (_, i) => i));
    // The slow one gets the reason at once: what it had not taken is dropped with it.
    await expect(slow.next()).rejects.toMatchObject({ code: 'SUBSCRIBER_TOO_SLOW', extensions: { maxPendingEvents: 50 } });
    await expect(slow.next()).resolves.toMatchObject({ done: true });
    expect(publicationListeners(target)).toBe(before - 2);
  });

  it('cuts off a subscriber that falls behind by bytes, and keeps only the events a filter accepts', async () => {
    const target = await makeTarget();
    const publications = new Publications<{ n: number; pad: string }>(target, { maxPendingEvents: 10_000, maxPendingBytes: 64 * 1024 });
    const topic = uniqueName('chart');
    const evens = publications.subscribe(topic, (e) => e.n % 2 === 0);
    const slow = publications.subscribe(topic);
    await new Promise((r) => setTimeout(r, 100));
    const first = evens.next();
    publications.publish(topic, { n: 1, pad: '' });
    publications.publish(topic, { n: 2, pad: '' });
    await expect(first).resolves.toMatchObject({ value: { n: 2 } });
    await evens.return?.(undefined);
    // 100 events of about 1 KB each: past 64 KB pending.
    for (let i = 0; i < 100; i++) publications.publish(topic, { n: i, pad: 'x'.repeat(1024) });
    await new Promise((r) => setTimeout(r, 100));
    // Its two small events went with the rest: it resumes from what it last took.
    await expect(slow.next()).rejects.toMatchObject({ code: 'SUBSCRIBER_TOO_SLOW', extensions: { maxPendingBytes: 64 * 1024 } });
  });
});
