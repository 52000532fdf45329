import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { markLocal } from '../infra/eventBus.ts';
import { DEFAULT_SUBSCRIBER_LIMITS, Publications, type SubscriberLimits } from './publications.ts';

/**
 * A set of topics: what each name's key is (the part of the topic after its name; null
 * for a topic without one) and what it carries. Each service area declares its own set
 * beside its payloads; services/topics.ts joins them into the set of the process.
 */
export type TopicSpecs<M> = { [N in keyof M]: { key: string | null; payload: unknown } };

/** The event target's topic string: the same in every process sharing a key prefix (Redis channels). */
export function topicString(prefix: string, name: string, key: string | null): string {
  return key === null ? `${prefix}${name}` : `${prefix}${name}:${key}`;
}

/**
 * Publishing and subscribing to the topics of M. A service area is handed the bus as this,
 * typed by its own topics, so it depends on the publisher's interface and its own payloads
 * only, never on the areas whose topics share the bus.
 */
export interface TopicBus<M extends TopicSpecs<M>> {
  publish<N extends keyof M & string>(name: N, key: M[N]['key'], payload: M[N]['payload']): void;
  /** The topic's events from now on (those `keep` accepts); see `Publications.subscribe`. */
  subscribe<N extends keyof M & string>(name: N, key: M[N]['key'], keep?: (payload: M[N]['payload']) => boolean): AsyncIterableIterator<M[N]['payload']>;
}

/**
 * The one publisher and subscriber of every topic, over one `Publications` (so the events
 * a commit releases go out together, one message per topic): built once in createServices.
 */
export class Topics<M extends TopicSpecs<M>> implements TopicBus<M> {
  private readonly publications: Publications<M[keyof M]['payload']>;

  constructor(
    events: TypedEventTarget<CustomEvent>,
    private readonly prefix: string,
    limits: SubscriberLimits = DEFAULT_SUBSCRIBER_LIMITS,
    /** Names whose topics never leave this process (RedisEventBus.markLocal). */
    local: readonly (keyof M & string)[] = [],
  ) {
    this.publications = new Publications(events, limits);
    for (const name of local) markLocal(events, topicString(prefix, name, ''));
  }

  publish<N extends keyof M & string>(name: N, key: M[N]['key'], payload: M[N]['payload']): void {
    this.publications.publish(topicString(this.prefix, name, key), payload);
  }

  subscribe<N extends keyof M & string>(name: N, key: M[N]['key'], keep?: (payload: M[N]['payload']) => boolean): AsyncIterableIterator<M[N]['payload']> {
    // Only `publish` above writes these topics, and it takes the payload of the topic's
    // name: what arrives on the topic string of `name` is that name's payload.
    const accept = keep as ((payload: M[keyof M]['payload']) => boolean) | undefined;
    return this.publications.subscribe(topicString(this.prefix, name, key), accept) as AsyncIterableIterator<M[N]['payload']>;
  }
}
