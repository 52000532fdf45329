import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import type { FlowEvent } from './chain/index.ts';
import type { ChartLayerEvent } from './chart/index.ts';
import { DEFAULT_SUBSCRIBER_LIMITS, Publications, type SubscriberLimits } from './publications.ts';
import type { BalanceEventPayload, BookDeltaPayload, FillPayload, OrderEventPayload, PublicTradePayload, TriggerEventPayload } from './trading/index.ts';

/** A board's committed access change (audience, roles, members, archive state, deletion). */
export interface WhiteboardAccessChanged {
  boardId: string;
  accessVersion: bigint;
  /** The board is gone: its rooms close for everyone. */
  deleted?: boolean;
}

/**
 * Every event topic: what its key is (the part of the topic after its name) and what it
 * carries. Trading's topics are published once their journal entry is committed, from
 * that entry; the others once their change is stored.
 */
export interface TopicMap {
  /** An account's order versions; key: the account's public id. */
  orders: { key: string; payload: OrderEventPayload };
  /** An account's fills; key: the account's public id. */
  fills: { key: string; payload: FillPayload };
  /** An account's trigger events; key: the account's public id. */
  triggers: { key: string; payload: TriggerEventPayload };
  /** An account's balances as entries left them; key: the account's public id. */
  balances: { key: string; payload: BalanceEventPayload };
  /** A market's order-book deltas; key: its symbol. */
  book: { key: string; payload: BookDeltaPayload };
  /** A market's trades; key: its symbol. */
  trades: { key: string; payload: PublicTradePayload };
  /** The flows of a root account and its subaccounts; key: the root's public id. */
  flows: { key: string; payload: FlowEvent };
  /** An owner's chart layers and drawings; key: the owner's public id. */
  chart: { key: string; payload: ChartLayerEvent };
  /** Every board's access changes, for every process with rooms: one topic, no key. */
  'whiteboard-access': { key: null; payload: WhiteboardAccessChanged };
}

export type TopicName = keyof TopicMap;
export type TopicKey<N extends TopicName> = TopicMap[N]['key'];
export type TopicPayload<N extends TopicName> = TopicMap[N]['payload'];

/** The event target's topic string: the same in every process sharing a key prefix (Redis channels). */
export function topicString<N extends TopicName>(prefix: string, name: N, key: TopicKey<N>): string {
  return key === null ? `${prefix}${name}` : `${prefix}${name}:${key}`;
}

/**
 * The one publisher and subscriber of every topic, over one `Publications` (so the events
 * a commit releases go out together, one message per topic): built once in createServices.
 */
export class Topics {
  private readonly publications: Publications<TopicPayload<TopicName>>;

  constructor(
    events: TypedEventTarget<CustomEvent>,
    private readonly prefix: string,
    limits: SubscriberLimits = DEFAULT_SUBSCRIBER_LIMITS,
  ) {
    this.publications = new Publications(events, limits);
  }

  publish<N extends TopicName>(name: N, key: TopicKey<N>, payload: TopicPayload<N>): void {
    this.publications.publish(topicString(this.prefix, name, key), payload);
  }

  /** The topic's events from now on (those `keep` accepts); see `Publications.subscribe`. */
  subscribe<N extends TopicName>(name: N, key: TopicKey<N>, keep?: (payload: TopicPayload<N>) => boolean): AsyncIterableIterator<TopicPayload<N>> {
    // Only `publish` above writes these topics, and it takes the payload of the topic's
    // name: what arrives on the topic string of `name` is that name's payload.
    const accept = keep as ((payload: TopicPayload<TopicName>) => boolean) | undefined;
    return this.publications.subscribe(topicString(this.prefix, name, key), accept) as AsyncIterableIterator<TopicPayload<N>>;
  }
}
