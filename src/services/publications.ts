import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { ApiError, errors } from '../domain/errorCatalogue.ts';
import { isResync } from '../infra/eventBus.ts';

/**
 * How far one subscriber may fall behind its stream before it is cut off: events it has
 * not taken yet, and their approximate encoded size (docs/scaling.md, "Stream limits").
 */
export interface SubscriberLimits {
  maxPendingEvents: number;
  maxPendingBytes: number;
}

export const DEFAULT_SUBSCRIBER_LIMITS: SubscriberLimits = { maxPendingEvents: 5_000, maxPendingBytes: 4 * 1024 * 1024 };

/** The error a subscriber that fell behind gets as its stream's last item. */
export function subscriberTooSlow(limits: SubscriberLimits): ApiError {
  return errors.SUBSCRIBER_TOO_SLOW(
    `the subscriber fell more than ${limits.maxPendingEvents} events or ${limits.maxPendingBytes} bytes behind its stream; ` +
      'subscribe again with `after` set to the last sequence received, or read a snapshot and subscribe again',
    { extensions: { maxPendingEvents: limits.maxPendingEvents, maxPendingBytes: limits.maxPendingBytes } },
  );
}

/** Subscribers each target carries, across every Publications on it (leak checks, metrics). */
const listening = new WeakMap<object, { count: number }>();

export function publicationListeners(target: object): number {
  return listening.get(target)?.count ?? 0;
}

/**
 * The events committed groups release, sent as one message per topic per group: events
 * are queued as a commit's callbacks run and sent together in a microtask after the last
 * of them, so a busy group costs one dispatch per topic instead of one per event (and one
 * Redis PUBLISH, for a topic that is not kept in the process: RedisEventBus.markLocal).
 * Subscribers get the events one at a time, in order, each from a queue of its own that
 * is bounded: a subscriber that falls behind is cut off, so it never slows the others nor
 * throws into the publisher.
 */
export class Publications<T> {
  private readonly pending = new Map<string, T[]>();
  private readonly counter: { count: number };

  constructor(
    private readonly events: TypedEventTarget<CustomEvent>,
    private readonly limits: SubscriberLimits = DEFAULT_SUBSCRIBER_LIMITS,
  ) {
    let counter = listening.get(events);
    if (!counter) {
      counter = { count: 0 };
      listening.set(events, counter);
    }
    this.counter = counter;
  }

  publish(topic: string, event: T): void {
    if (this.pending.size === 0) queueMicrotask(() => this.flush());
    const queued = this.pending.get(topic);
    if (queued) queued.push(event);
    else this.pending.set(topic, [event]);
  }

  /**
   * The topic's events from now on (those `keep` accepts). Leaving (`return`) lets go of
   * the topic at once, whether or not an event comes.
   */
  subscribe(topic: string, keep?: (event: T) => boolean): AsyncIterableIterator<T> {
    return new Subscriber<T>(this.events, topic, this.limits, this.counter, keep);
  }

  private flush(): void {
    const pending = [...this.pending];
    this.pending.clear();
    for (const [topic, events] of pending) this.events.dispatchEvent(new CustomEvent(topic, { detail: events }));
  }
}

/** Approximate encoded size of an event, computed once per event whatever the subscribers. */
const sizes = new WeakMap<object, number>();
function sizeOf(event: unknown): number {
  if (typeof event !== 'object' || event === null) return 16;
  let size = sizes.get(event);
  if (size === undefined) {
    size = JSON.stringify(event, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)).length;
    sizes.set(event, size);
  }
  return size;
}

class Subscriber<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private bytes = 0;
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (err: unknown) => void } | undefined;
  private failure: ApiError | undefined;
  private closed = false;
  private readonly listener = (event: CustomEvent) => this.receive(event.detail);

  constructor(
    private readonly events: TypedEventTarget<CustomEvent>,
    private readonly topic: string,
    private readonly limits: SubscriberLimits,
    private readonly counter: { count: number },
    private readonly keep: ((event: T) => boolean) | undefined,
  ) {
    events.addEventListener(topic, this.listener);
    counter.count += 1;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    const value = this.queue.shift();
    if (value !== undefined) {
      if (this.queue.length === 0) this.bytes = 0;
      else if (typeof value === 'object' && value !== null) this.bytes -= sizes.get(value) ?? 0;
      return Promise.resolve({ value, done: false });
    }
    if (this.failure) {
      const err = this.failure;
      this.failure = undefined;
      return Promise.reject(err);
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  return(): Promise<IteratorResult<T>> {
    this.end(undefined);
    this.queue.length = 0;
    this.failure = undefined;
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Runs on the publisher's stack: it must never throw, whatever the subscriber does. */
  private receive(detail: unknown): void {
    if (this.closed) return;
    // Messages were lost on the way (a Redis outage): the stream ends with an error that
    // tells the client to reload and subscribe again.
    if (isResync(detail)) {
      this.end(errors.RESYNC_REQUIRED('events of this stream may have been missed; reload and subscribe again'));
      return;
    }
    if (!Array.isArray(detail)) return;
    for (const event of detail as T[]) {
      if (this.keep) {
        let kept: boolean;
        try {
          kept = this.keep(event);
        } catch {
          kept = false;
        }
        if (!kept) continue;
      }
      const waiting = this.waiting;
      if (waiting) {
        this.waiting = undefined;
        waiting.resolve({ value: event, done: false });
        continue;
      }
      this.queue.push(event);
      this.bytes += sizeOf(event);
      if (this.queue.length > this.limits.maxPendingEvents || this.bytes > this.limits.maxPendingBytes) {
        // What it had not taken is dropped with it: its client resumes from its last sequence.
        this.queue.length = 0;
        this.bytes = 0;
        this.end(subscriberTooSlow(this.limits));
        return;
      }
    }
  }

  private end(failure: ApiError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.events.removeEventListener(this.topic, this.listener);
    this.counter.count -= 1;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) {
      if (failure) waiting.reject(failure);
      else waiting.resolve({ value: undefined, done: true });
    } else {
      this.failure = failure;
    }
  }
}
