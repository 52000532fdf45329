import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { Writable } from 'node:stream';
import { createApp, type App, type CreateAppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/infra/database.ts';
import { openSharedStore, type OpenSharedStoreOptions, type SharedStore } from '../../src/infra/redis.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './env.ts';

export const TEST_OPERATOR_TOKEN = 'test-operator-token-0123456789';

export const uniqueName = (prefix: string) => `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;

/** A fresh PostgreSQL schema with every migration applied; `drop()` removes it. */
export async function testDatabase(): Promise<Database & { schema: string; drop(): Promise<void> }> {
  const schema = uniqueName('t');
  const db = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL, schema });
  return Object.assign(db, {
    schema,
    async drop() {
      await db.close();
      await dropSchema(schema);
    },
  });
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Real Redis under a key prefix of its own; `flush()` deletes that prefix's keys. */
export async function testStore(options: OpenSharedStoreOptions = {}): Promise<SharedStore & { flush(): Promise<void> }> {
  const keyPrefix = `${uniqueName('t')}:`;
  const store = await openSharedStore({ kind: 'redis', url: TEST_REDIS_URL, keyPrefix }, options);
  return Object.assign(store, {
    async flush() {
      const redis = new Redis(TEST_REDIS_URL);
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
      await store.close();
    },
  });
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    PAGE_TOKEN_SECRET: randomBytes(32).toString('hex'),
    OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    // Clients in tests sit behind a pretend load balancer, so each can have its own address.
    TRUST_PROXY: 'true',
    // A test machine runs many servers at once, and an event loop stalled for a quarter of a
    // second is no outage there: the rate limiter's Redis deadline is 1 s in tests (250 ms in
    // production). Tests of an unreachable Redis refuse at once, or set their own.
    RATE_LIMIT_TIMEOUT_MS: '1000',
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    ...overrides,
  });
}

export interface RunningApp {
  app: App;
  url: string;
  database: Database;
  store: SharedStore;
  logs: string[];
  close(): Promise<void>;
}

/** The whole service on a free port, over its own schema and key prefix. */
export async function startTestApp(
  options: Partial<Omit<CreateAppOptions, 'config'>> & {
    env?: Record<string, string>;
    /** Let the app open (and close) its own database and Redis, as main.ts does. */
    ownInfra?: boolean;
  } = {},
): Promise<RunningApp> {
  if (options.ownInfra) return startOwningApp(options);
  const database = options.database ?? (await testDatabase());
  const store = options.store ?? (await testStore());
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const app = await createApp({
    ...options,
    config: testConfig({ LOG_LEVEL: 'info', ...options.env }),
    database,
    store,
    logStream,
  });
  const url = await app.listen();
  return {
    app,
    url,
    database,
    store,
    logs,
    async close() {
      await app.close();
      if (!options.store) await (store as Awaited<ReturnType<typeof testStore>>).flush();
      if (!options.database) await (database as Awaited<ReturnType<typeof testDatabase>>).drop();
    },
  };
}

export async function tempDir(prefix = 'sx-'): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

async function startOwningApp(options: { env?: Record<string, string>; extraRoutes?: CreateAppOptions['extraRoutes'] }) {
  const schema = uniqueName('t');
  const app = await createApp({
    config: testConfig({ DATABASE_SCHEMA: schema, REDIS_KEY_PREFIX: `${schema}:`, ...options.env }),
    ...(options.extraRoutes ? { extraRoutes: options.extraRoutes } : {}),
  });
  const url = await app.listen();
  return {
    app,
    url,
    database: app.database,
    store: app.store,
    logs: [],
    async close() {
      await app.close();
      await dropSchema(schema);
    },
  };
}

let pgliteTemplate: Promise<string> | undefined;

/**
 * The data directory of an embedded database made from nothing and migrated, once per test
 * process: initdb and the migrations in WebAssembly take seconds, a copy of the directory a
 * fraction of one. Each copy is opened as the service opens it (the migrations found applied).
 */
function migratedPglite(): Promise<string> {
  pgliteTemplate ??= (async () => {
    const { dir } = await tempDir('sx-pglite-template-');
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const database = await openDatabase({ kind: 'pglite', dataDir: dir });
    await database.close();
    return dir;
  })();
  return pgliteTemplate;
}

/** The two database engines the service runs on, each opened fresh for one test. */
export const databaseEngines: [string, () => Promise<{ database: Database; dispose(): Promise<void> }>][] = [
  [
    'PostgreSQL',
    async () => {
      const database = await testDatabase();
      return { database, dispose: () => database.drop() };
    },
  ],
  [
    'PGlite',
    async () => {
      const { dir, remove } = await tempDir();
      await cp(path.join(await migratedPglite(), 'pglite'), path.join(dir, 'pglite'), { recursive: true });
      const database = await openDatabase({ kind: 'pglite', dataDir: dir });
      return {
        database,
        async dispose() {
          await database.close();
          await remove();
        },
      };
    },
  ],
];
