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
  /** Sets `key` only when absent, for `ttlMs`; true when this call set it (SET NX PX). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Sets fields of a hash (HSET). */
  hashSet(key: string, fields: Record<string, string>): Promise<void>;
  /** Reads fields of a hash (HMGET); absent fields are undefined. */
  hashGet(key: string, fields: string[]): Promise<(string | undefined)[]>;
  /** Reads and clears a whole hash in one step (HGETALL + DEL in MULTI). */
  hashTake(key: string): Promise<Record<string, string>>;
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
    // Commands issued in the same tick share one round trip.
    enableAutoPipelining: true,
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
    async setIfAbsent(key, value, ttlMs) {
      return (await command.set(config.keyPrefix + key, value, 'PX', ttlMs, 'NX')) === 'OK';
    },
    async hashSet(key, fields) {
      await command.hset(config.keyPrefix + key, fields);
    },
    async hashGet(key, fields) {
      if (fields.length === 0) return [];
      return (await command.hmget(config.keyPrefix + key, ...fields)).map((v) => v ?? undefined);
    },
    async hashTake(key) {
      const result = await command.multi().hgetall(config.keyPrefix + key).del(config.keyPrefix + key).exec();
      const [err, value] = result?.[0] ?? [null, {}];
      if (err) throw err;
      return value as Record<string, string>;
    },
    async close() {
      await Promise.allSettled([command.quit(), publisher.quit(), subscriber.quit()]);
    },
  };
}

/** One process's stand-in: the same semantics, kept in maps; expiry is checked on read. */
function memoryStore(keyPrefix: string): SharedStore {
  const values = new Map<string, { value: string; expiresAt: number }>();
  const hashes = new Map<string, Map<string, string>>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, v] of values) if (v.expiresAt <= now) values.delete(k);
  }, 10_000);
  sweep.unref();
  return {
    kind: 'memory',
    keyPrefix,
    events: new EventTarget() as TypedEventTarget<CustomEvent>,
    async ping() {},
    async setIfAbsent(key, value, ttlMs) {
      const now = Date.now();
      const existing = values.get(key);
      if (existing && existing.expiresAt > now) return false;
      values.set(key, { value, expiresAt: now + ttlMs });
      return true;
    },
    async hashSet(key, fields) {
      const hash = hashes.get(key) ?? new Map<string, string>();
      for (const [f, v] of Object.entries(fields)) hash.set(f, v);
      hashes.set(key, hash);
    },
    async hashGet(key, fields) {
      const hash = hashes.get(key);
      return fields.map((f) => hash?.get(f));
    },
    async hashTake(key) {
      const hash = hashes.get(key);
      hashes.delete(key);
      return Object.fromEntries(hash ?? []);
    },
    async close() {
      clearInterval(sweep);
    },
  };
}
