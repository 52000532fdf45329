import { Redis } from 'ioredis';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import type { Config } from '../config.ts';

/**
 * Shared state across API processes: Redis when configured, an in-process stand-in
 * otherwise (the `npm start` default). Rate limiting and pub/sub are built on this;
 * both implementations keep the same semantics so tests can run either.
 */
export interface SharedStore {
  readonly kind: 'redis' | 'memory';
  /** Every key this process writes starts with it (tests use one per file). */
  readonly keyPrefix: string;
  /** The command connection, only for the Redis kind. */
  readonly redis?: Redis;
  /** Event bus behind GraphQL subscriptions; Redis pub/sub fans out across processes. */
  readonly events: TypedEventTarget<CustomEvent>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenSharedStoreOptions {
  /** Deadline for one command; beyond it the authority counts as unavailable. */
  commandTimeoutMs?: number;
}

export async function openSharedStore(
  config: Config['redis'],
  options: OpenSharedStoreOptions = {},
): Promise<SharedStore> {
  if (config.kind === 'memory') return memoryStore(config.keyPrefix);
  const redisOptions = {
    commandTimeout: options.commandTimeoutMs ?? 250,
    maxRetriesPerRequest: 1,
    // Fail fast instead of queueing commands while disconnected: callers answer 503.
    enableOfflineQueue: false,
    lazyConnect: true,
  };
  const command = new Redis(config.url, redisOptions);
  const publisher = new Redis(config.url, redisOptions);
  const subscriber = new Redis(config.url, { ...redisOptions, commandTimeout: undefined, enableOfflineQueue: true });
  for (const c of [command, publisher, subscriber]) c.on('error', () => undefined);
  await Promise.all([command.connect(), publisher.connect(), subscriber.connect()]).catch(async (err: unknown) => {
    command.disconnect();
    publisher.disconnect();
    subscriber.disconnect();
    throw err;
  });
  const events = createRedisEventTarget<CustomEvent>({ publishClient: publisher, subscribeClient: subscriber });
  return {
    kind: 'redis',
    keyPrefix: config.keyPrefix,
    redis: command,
    events,
    async ping() {
      await command.ping();
    },
    async close() {
      await Promise.allSettled([command.quit(), publisher.quit(), subscriber.quit()]);
    },
  };
}

function memoryStore(keyPrefix: string): SharedStore {
  return {
    kind: 'memory',
    keyPrefix,
    events: new EventTarget() as TypedEventTarget<CustomEvent>,
    async ping() {},
    async close() {},
  };
}
