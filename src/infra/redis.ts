import { Redis } from 'ioredis';
import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { readFileSync } from 'node:fs';
import type { Config } from '../config.ts';
import { chargeAll, type BucketState, type ChargeOutcome, type ScaledBucket } from '../domain/ratelimit/tokenBucket.ts';
import { RedisEventBus } from './eventBus.ts';

const CHARGE_BUCKETS_LUA = readFileSync(new URL('./lua/charge-buckets.lua', import.meta.url), 'utf8');

export interface BucketCharge extends ScaledBucket {
  key: string;
}

/** A signature's single use, claimed in the same script as the request's charges. */
export interface SignatureClaim {
  /** Replay-guard key (without the store's prefix). */
  key: string;
  ttlMs: number;
  /** The API key's last use, when due: written to `hash` with the claim. */
  lastUsed?: { hash: string; field: string; value: string };
}

/** A charge with a claim: refused outright, charging nothing, when the signature was used. */
export type AdmitOutcome = ChargeOutcome | { admitted: false; replayed: true };

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
  /**
   * Charges every bucket or none, in one round trip (a Lua script run by EVALSHA),
   * on the store's own clock; with a claim, first uses up the request's signature in the
   * same call. Rejects when the store cannot answer in time.
   */
  chargeBuckets(charges: BucketCharge[], claim?: SignatureClaim): Promise<AdmitOutcome>;
  /** Whether the store answers now (false while Redis is away: callers need not wait for a timeout). */
  readonly available: boolean;
  /** While Redis does not answer, the last error of its command connection (what start-up tells the person). */
  readonly connectionError?: Error;
  close(): Promise<void>;
}

export interface OpenSharedStoreOptions {
  /** Deadline for one command; beyond it the authority counts as unavailable. */
  commandTimeoutMs?: number;
  /** How long start-up waits for Redis before serving without it. */
  connectWaitMs?: number;
  /** Events kept for other processes while Redis is away (see RedisEventBus). */
  outboxLimit?: number;
  /** Told how many events other processes will miss (outbox overflow during an outage). */
  onEventsDropped?: (count: number) => void;
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
    // Reconnect for ever, at most a second apart: an outage of Redis is waited out, never fatal.
    retryStrategy: (times: number) => Math.min(times * 50, 1_000),
  };
  const command = new Redis(config.url, redisOptions);
  command.defineCommand('chargeBuckets', { lua: CHARGE_BUCKETS_LUA });
  const publisher = new Redis(config.url, redisOptions);
  // The event bus subscribes again on every 'ready' itself; ioredis's own resubscription
  // leaves its promise unhandled, so a connection closed just after reconnecting rejected
  // it with nobody listening ("Connection is closed" failed a CI run).
  const subscriber = new Redis(config.url, { ...redisOptions, commandTimeout: undefined, enableOfflineQueue: true, autoResubscribe: false });
  let connectionError: Error | undefined;
  command.on('error', (err: Error) => (connectionError = err));
  for (const c of [publisher, subscriber]) c.on('error', () => undefined);
  // Start-up waits a moment for Redis but never fails on it: with Redis away the service
  // still serves reads, and mutations answer 503 until it is back.
  await readyWithin([command, publisher, subscriber], options.connectWaitMs ?? 2_000);
  const events = new RedisEventBus({
    publisher,
    subscriber,
    codec: EVENT_CODEC,
    ...(options.outboxLimit ? { outboxLimit: options.outboxLimit } : {}),
    ...(options.onEventsDropped ? { onDropped: options.onEventsDropped } : {}),
  });
  return {
    kind: 'redis',
    keyPrefix: config.keyPrefix,
    redis: command,
    events,
    get available() {
      return command.status === 'ready';
    },
    get connectionError() {
      return command.status === 'ready' ? undefined : connectionError;
    },
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
    async chargeBuckets(charges, claim) {
      const keys = charges.map((c) => config.keyPrefix + c.key);
      const args: (string | number)[] = [charges.length, ...charges.flatMap((c) => [c.capacity, c.rate, c.cost, c.periodUs]), ttlMs(charges)];
      if (claim) {
        keys.push(config.keyPrefix + claim.key);
        args.push(claim.ttlMs);
        if (claim.lastUsed) {
          keys.push(config.keyPrefix + claim.lastUsed.hash);
          args.push(claim.lastUsed.field, claim.lastUsed.value);
        }
      }
      const reply = (await (command as unknown as ChargeCommand).chargeBuckets(keys.length, ...keys, ...args)) as number[];
      if (reply[0] === 2) return { admitted: false, replayed: true };
      if (reply[0] === 1) return { admitted: true, levels: [], remaining: reply.slice(1) };
      return { admitted: false, rejectedIndex: reply[1] as number, remaining: reply[2] as number, retryAfterUs: reply[3] as number };
    },
    async close() {
      // quit() waits for a reply that never comes while Redis is away.
      for (const c of [command, publisher, subscriber]) {
        if (c.status === 'ready') await c.quit().catch(() => c.disconnect());
        else c.disconnect();
      }
    },
  };
}

/** Resolves once every connection is ready, or after `ms` whatever their state. */
async function readyWithin(connections: Redis[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ready = (c: Redis) => (c.status === 'ready' ? Promise.resolve() : new Promise<void>((resolve) => c.once('ready', () => resolve())));
  await Promise.race([Promise.all(connections.map(ready)), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** One process's stand-in: the same semantics, kept in maps; expiry is checked on read. */
function memoryStore(keyPrefix: string): SharedStore {
  const values = new Map<string, { value: string; expiresAt: number }>();
  const buckets = new Map<string, BucketState>();
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
    available: true,
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
    async chargeBuckets(charges, claim) {
      if (claim) {
        if (!(await this.setIfAbsent(claim.key, '1', claim.ttlMs))) return { admitted: false, replayed: true };
        if (claim.lastUsed) await this.hashSet(claim.lastUsed.hash, { [claim.lastUsed.field]: claim.lastUsed.value });
      }
      if (charges.length === 0) return { admitted: true, levels: [], remaining: [] };
      const nowUs = Math.floor((performance.timeOrigin + performance.now()) * 1000);
      const outcome = chargeAll(charges, charges.map((c) => buckets.get(c.key)), nowUs);
      if (outcome.admitted) charges.forEach((c, i) => buckets.set(c.key, { level: outcome.levels[i] as number, atUs: nowUs }));
      return outcome;
    },
    async close() {
      clearInterval(sweep);
    },
  };
}

interface ChargeCommand {
  chargeBuckets(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** A bucket idle long enough to be full again is the same as no bucket: let it expire. */
function ttlMs(charges: ScaledBucket[]): number {
  return Math.max(0, ...charges.map((c) => Math.ceil(c.capacity / c.rate / 1000))) + 1000;
}

/** Bigints and dates tagged as JSON-safe objects, in one walk (a stringify replacer costs a call per key). */
function toWire(value: unknown): unknown {
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Array.isArray(value)) return value.map(toWire);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key in value) out[key] = toWire((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/**
 * Events cross processes as JSON; bigints and dates (order versions, quantities, times)
 * are tagged so subscribers get back exactly what was published.
 */
export const EVENT_CODEC = {
  stringify: (message: unknown) => JSON.stringify(toWire(message)),
  parse: (text: string) =>
    JSON.parse(text, (_key, value: unknown) => {
      if (value && typeof value === 'object') {
        const v = value as { $bigint?: string; $date?: string };
        if (typeof v.$bigint === 'string') return BigInt(v.$bigint);
        if (typeof v.$date === 'string') return new Date(v.$date);
      }
      return value;
    }),
};
