import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import { AccessChanges } from './accessTopic.ts';
import type { LiveRooms } from './liveRooms.ts';

/** What the whiteboard operations use. */
export interface WhiteboardsContext {
  db: Db;
  clock: Clock;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
  accessChanges: AccessChanges;
  /** The open rooms of this process, once they have registered (none in a process without rooms). */
  rooms: LiveRooms;
}

/** The context of the whiteboard service, built once per process from the shared parts. */
export function whiteboardsContext(deps: {
  db: Db;
  clock: Clock;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
  events: TypedEventTarget<CustomEvent>;
  topicPrefix: string;
}): WhiteboardsContext {
  return {
    db: deps.db,
    clock: deps.clock,
    pageTokens: deps.pageTokens,
    limiter: deps.limiter,
    accessChanges: new AccessChanges(deps.events, deps.topicPrefix),
    rooms: { document: () => undefined, edit: undefined },
  };
}
