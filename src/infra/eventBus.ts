import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';

/**
 * What a listener receives instead of a message when messages of its topic may have been
 * lost (another process's outbox overflowed during a Redis outage, or this process missed
 * messages while its subscription was down): it must reload what it shows.
 */
export const RESYNC = Object.freeze({ $resync: true as const });
export type Resync = typeof RESYNC;

export function isResync(value: unknown): value is Resync {
  return value === RESYNC;
}

export interface EventCodec {
  stringify(message: unknown): string;
  parse(text: string): unknown;
}

export interface RedisEventBusOptions {
  publisher: Redis;
  subscriber: Redis;
  codec: EventCodec;
  /** Messages kept for other processes while Redis is away; past it the oldest are dropped. */
  outboxLimit?: number;
  /**
   * After Redis comes back, how long the outbox waits before it is sent: other processes'
   * subscriptions reconnect within about a second (their retry interval) and would miss
   * what was sent before.
   */
  resendDelayMs?: number;
  onDropped?: (count: number) => void;
}

type Listener = (event: CustomEvent) => void;

/**
 * The event bus behind subscriptions and credential pushes. Listeners of this process get
 * its own events at once, in order, whatever Redis is doing; other processes get them over
 * Redis pub/sub. A publish never throws: while Redis is away messages wait in an outbox,
 * sent in order once it is back. Each message carries its origin and a per-topic sequence,
 * so a receiver drops its own echoes and duplicates and, on a gap, tells the topic's
 * listeners to resync.
 */
export class RedisEventBus implements TypedEventTarget<CustomEvent> {
  private readonly origin = randomBytes(6).toString('hex');
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly sentSeq = new Map<string, number>();
  /** topic -> origin -> last sequence received. */
  private readonly receivedSeq = new Map<string, Map<string, number>>();
  private readonly outbox: { topic: string; text: string }[] = [];
  /** Critical topics' messages wait apart: an overflow of the others never drops them. */
  private readonly criticalOutbox: { topic: string; text: string }[] = [];
  private readonly critical = new Set<string>();
  /** Prefixes of topics that never leave this process (see markLocal). */
  private readonly localPrefixes: string[] = [];
  private draining = false;
  private readonly outboxLimit: number;

  constructor(private readonly options: RedisEventBusOptions) {
    this.outboxLimit = options.outboxLimit ?? 100_000;
    options.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
    // Subscriptions made while Redis was away may have failed: subscribe again on every
    // (re)connection. SUBSCRIBE is idempotent.
    let subscriptionLost = false;
    options.subscriber.on('close', () => (subscriptionLost = true));
    options.subscriber.on('ready', () => {
      const topics = [...this.listeners.keys()].filter((t) => !this.isLocal(t));
      const resubscribed = topics.length > 0 ? options.subscriber.subscribe(...topics).catch(() => undefined) : Promise.resolve();
      if (!subscriptionLost) return;
      subscriptionLost = false;
      // Whatever was published while this subscription was down is gone, and nothing may
      // follow that would show the gap: a critical topic's listeners resync now.
      void resubscribed.then(() => {
        for (const topic of this.critical) this.deliver(topic, RESYNC);
      });
    });
    let lost = false;
    options.publisher.on('close', () => (lost = true));
    options.publisher.on('ready', () => {
      if (!lost) return void this.drain();
      lost = false;
      setTimeout(() => void this.drain(), options.resendDelayMs ?? 1_500).unref();
    });
  }

  addEventListener(topic: string, callback: EventListenerOrEventListenerObject | null): void {
    if (!callback) return;
    const fn = this.listenerOf(callback);
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
      if (!this.isLocal(topic)) this.options.subscriber.subscribe(topic).catch(() => undefined);
    }
    set.add(fn);
  }

  removeEventListener(topic: string, callback: EventListenerOrEventListenerObject | null): void {
    if (!callback) return;
    const fn = this.listenerOf(callback);
    const set = this.listeners.get(topic);
    if (!set) return;
    set.delete(fn);
    if (set.size > 0) return;
    this.listeners.delete(topic);
    this.receivedSeq.delete(topic);
    if (!this.isLocal(topic)) this.options.subscriber.unsubscribe(topic).catch(() => undefined);
  }

  /**
   * A topic whose lost messages would fail open (access and credential changes): its
   * messages have an outbox of their own, sent first, that other topics' traffic never
   * trims, and its listeners get RESYNC whenever this process's subscription was down.
   */
  markCritical(topic: string): void {
    this.critical.add(topic);
  }

  /**
   * Topics starting with `prefix` are this process's alone: their events go to its own
   * listeners and never to Redis, and listening to them subscribes to nothing there. For
   * topics that only the process publishing them can serve (trading's: one process per
   * database runs the engine), where a message to Redis would reach no one and cost a
   * serialisation per event, a PUBLISH and Redis's CPU.
   */
  markLocal(prefix: string): void {
    this.localPrefixes.push(prefix);
  }

  private isLocal(topic: string): boolean {
    for (const prefix of this.localPrefixes) if (topic.startsWith(prefix)) return true;
    return false;
  }

  dispatchEvent(event: CustomEvent): boolean {
    const topic = event.type;
    this.deliver(topic, event.detail);
    if (this.isLocal(topic)) return true;
    const seq = (this.sentSeq.get(topic) ?? 0) + 1;
    this.sentSeq.set(topic, seq);
    const body = event.detail === undefined ? '' : this.options.codec.stringify(event.detail);
    const queue = this.critical.has(topic) ? this.criticalOutbox : this.outbox;
    queue.push({ topic, text: `${this.origin}:${seq}:${body}` });
    if (queue.length > this.outboxLimit) {
      const dropped = queue.splice(0, queue.length - this.outboxLimit).length;
      this.options.onDropped?.(dropped);
    }
    // While earlier messages wait (Redis away, or back but in its resend delay), this one
    // waits behind them: order per topic is kept. The drain starts after the current
    // microtask, so a commit's topics, dispatched one after another, leave in one pipeline.
    if (this.pending === 1) queueMicrotask(() => void this.drain());
    return true;
  }

  /** The same function for the same listener object, so it can be removed again. */
  private readonly objectListeners = new WeakMap<EventListenerObject, Listener>();
  private listenerOf(callback: EventListenerOrEventListenerObject): Listener {
    if (typeof callback === 'function') return callback as Listener;
    let fn = this.objectListeners.get(callback);
    if (!fn) {
      fn = (event) => callback.handleEvent(event);
      this.objectListeners.set(callback, fn);
    }
    return fn;
  }

  /** Listeners registered, over every topic (leak checks, metrics). */
  get listenerCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  /** Messages not yet handed to Redis. */
  get pending(): number {
    return this.criticalOutbox.length + this.outbox.length;
  }

  /** Sends the outbox in order; stops at the first failure and resumes on the next 'ready'. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.pending > 0 && this.options.publisher.status === 'ready') {
        const queue = this.criticalOutbox.length > 0 ? this.criticalOutbox : this.outbox;
        const batch = queue.slice(0, 512);
        const pipeline = this.options.publisher.pipeline();
        for (const m of batch) pipeline.publish(m.topic, m.text);
        const results = await pipeline.exec().catch(() => null);
        const sent = results ? results.findIndex(([err]) => err) : 0;
        const delivered = sent === -1 ? batch.length : sent;
        // The outbox may have been trimmed meanwhile: remove only what is still at its head.
        let i = 0;
        while (i < delivered && queue[0] === batch[i]) {
          queue.shift();
          i++;
        }
        if (delivered < batch.length) {
          // Refused or timed out on a live connection: try again shortly (a lost one
          // resumes on its next 'ready').
          if (this.options.publisher.status === 'ready') setTimeout(() => void this.drain(), 1_000).unref();
          break;
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private receive(topic: string, message: string): void {
    const first = message.indexOf(':');
    const second = message.indexOf(':', first + 1);
    if (first < 0 || second < 0) return;
    const origin = message.slice(0, first);
    if (origin === this.origin) return;
    const seq = Number(message.slice(first + 1, second));
    let origins = this.receivedSeq.get(topic);
    if (!origins) {
      origins = new Map();
      this.receivedSeq.set(topic, origins);
    }
    const last = origins.get(origin);
    if (last !== undefined && seq <= last) return;
    origins.set(origin, seq);
    if (last !== undefined && seq > last + 1) this.deliver(topic, RESYNC);
    const body = message.slice(second + 1);
    this.deliver(topic, body === '' ? null : this.options.codec.parse(body));
  }

  private deliver(topic: string, detail: unknown): void {
    const set = this.listeners.get(topic);
    if (!set) return;
    const event = new CustomEvent(topic, { detail });
    // A listener's failure is its own: the publisher and the other listeners carry on.
    for (const fn of [...set]) {
      try {
        fn(event);
      } catch {
        continue;
      }
    }
  }
}

/** Keeps the topics starting with `prefix` in this process on a Redis bus (see RedisEventBus.markLocal); one process's bus keeps everything. */
export function markLocal(events: TypedEventTarget<CustomEvent>, prefix: string): void {
  if (events instanceof RedisEventBus) events.markLocal(prefix);
}

/** Marks `topic` critical on a Redis bus (see RedisEventBus.markCritical); one process's bus loses nothing. */
export function markCritical(events: TypedEventTarget<CustomEvent>, topic: string): void {
  if (events instanceof RedisEventBus) events.markCritical(topic);
}
