import { createPubSub, Repeater } from '@graphql-yoga/subscription';
import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { ApiError } from '../domain/errors.ts';
import { isResync } from '../infra/eventBus.ts';

/**
 * The events committed groups release, sent as one message per topic per group: events
 * are queued as a commit's callbacks run and sent together in a microtask after the last
 * of them, so a busy group costs one Redis PUBLISH per topic instead of one per event.
 * Subscribers get the events one at a time, in order.
 */
export class Publications<T> {
  private readonly pubsub: ReturnType<typeof createPubSub<Record<string, [T[]]>>>;
  private readonly pending = new Map<string, T[]>();

  constructor(events: TypedEventTarget<CustomEvent>) {
    this.pubsub = createPubSub<Record<string, [T[]]>>({ eventTarget: events });
  }

  publish(topic: string, event: T): void {
    if (this.pending.size === 0) queueMicrotask(() => this.flush());
    const queued = this.pending.get(topic);
    if (queued) queued.push(event);
    else this.pending.set(topic, [event]);
  }

  subscribe(topic: string): AsyncIterableIterator<T> {
    const batches = this.pubsub.subscribe(topic)[Symbol.asyncIterator]();
    return new Repeater<T>(async (push, stop) => {
      // A subscriber that leaves while no message comes must still let go of the topic:
      // ending the source settles the read it is waiting on.
      void stop.then(() => batches.return?.());
      try {
        for (let next = await batches.next(); !next.done; next = await batches.next()) {
          // Messages were lost on the way (a Redis outage): the stream ends with an error
          // that tells the client to reload and subscribe again.
          if (isResync(next.value)) {
            throw new ApiError('unavailable', 'events of this stream may have been missed; reload and subscribe again', { code: 'RESYNC_REQUIRED' });
          }
          for (const event of next.value) await push(event);
        }
      } finally {
        stop();
      }
    });
  }

  private flush(): void {
    for (const [topic, events] of this.pending) this.pubsub.publish(topic, events);
    this.pending.clear();
  }
}
