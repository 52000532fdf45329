import { Redis } from 'ioredis';
import { scale } from '../src/domain/ratelimit/tokenBucket.ts';
import { openSharedStore } from '../src/infra/redis.ts';
import { measure, table } from './harness.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function commandCalls(redis: Redis, name: string): Promise<number> {
  const info = await redis.info('commandstats');
  return Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

/**
 * One limiter check (three scopes, charged atomically by the Lua script) against a bare
 * PING, both through real Redis with one request in flight: the ratio is the cost of the
 * check beyond its single round trip.
 */
export async function run(): Promise<string> {
  const store = await openSharedStore({ kind: 'redis', url: REDIS_URL, keyPrefix: `bench:${process.pid}:` });
  const admin = new Redis(REDIS_URL);
  const policy = { quota: 1_000_000_000, periodMs: 1_000, burst: 1_000_000_000 };
  const charges = ['ACCOUNT', 'API_KEY', 'SUBACCOUNT'].map((scope) => ({ key: `rl:TRADING_PLACE:${scope}:bench`, ...scale(policy, 1) }));
  const pings = await measure('baseline: PING round trip', () => store.ping());
  const before = { evalsha: await commandCalls(admin, 'evalsha'), eval: await commandCalls(admin, 'eval') };
  const checks = await measure('limiter check, 3 scopes (EVALSHA)', () => store.chargeBuckets(charges));
  const after = { evalsha: await commandCalls(admin, 'evalsha'), eval: await commandCalls(admin, 'eval') };
  const commands = after.evalsha - before.evalsha + (after.eval - before.eval);
  await store.close();
  admin.disconnect();
  return [
    '### Rate limiter: checks per second through real Redis',
    '',
    table([pings, checks], pings),
    '',
    `Redis executed ${commands} script calls for ${checks.samples + 200} checks (including warm-up): one round trip per check.`,
  ].join('\n');
}
