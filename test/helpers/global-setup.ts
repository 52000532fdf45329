import pg from 'pg';
import { Redis } from 'ioredis';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './env.ts';

/** Fails the run at once, with a clear message, when PostgreSQL or Redis is not up. */
export default async function setup(): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(`PostgreSQL is not reachable at ${TEST_DATABASE_URL}: ${String(err)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis is not reachable at ${TEST_REDIS_URL}: ${String(err)}`);
  } finally {
    redis.disconnect();
  }
}
