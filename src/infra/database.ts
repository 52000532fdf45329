import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Config } from '../config.ts';
import { applyMigrations, type QueryOptions, type SqlRunner } from './migrations.ts';

export type Db = PrismaClient;

/** The database as the rest of the service sees it, whichever engine is behind it. */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly prisma: Db;
  /** Runs a multi-statement script outside Prisma (migrations, test set-up). */
  readonly sql: SqlRunner;
  ping(): Promise<void>;
  /**
   * Takes a session-level advisory lock (released when the process or its connection dies,
   * or by `release`); undefined when another process holds it. `onLost` runs if the lock's
   * connection dies before close() or release(): the lock is gone, and another process may
   * take it.
   */
  holdExclusive(name: string, onLost: (err: Error) => void): Promise<ExclusiveHold | undefined>;
  close(): Promise<void>;
}

export interface ExclusiveHold {
  /** Gives the lock up (its connection ends); `onLost` is not called for it. */
  release(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Apply pending migrations before returning (start-up and tests do). */
  migrate?: boolean;
  migrationsDir?: string;
}

export const DEFAULT_MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../prisma/migrations');

export async function openDatabase(
  config: Config['database'],
  options: OpenDatabaseOptions = {},
): Promise<Database> {
  const db = config.kind === 'postgres' ? await openPostgres(config.url, config.schema) : await openPglite(config.dataDir);
  if (options.migrate ?? true) {
    try {
      await applyMigrations(db.sql, options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
    } catch (err) {
      await db.close();
      throw err;
    }
  }
  return db;
}

/**
 * A prepared statement is named after its text, so statements that differ get different
 * names (pg refuses to reuse a name for another text) and each is prepared once per
 * connection.
 */
function pgQuery(text: string, values: unknown[], options?: QueryOptions): pg.QueryConfig {
  if (!options?.prepare) return { text, values };
  return { name: createHash('sha1').update(text).digest('base64url'), text, values };
}

async function openPostgres(url: string, schema?: string): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 20,
    // Raw SQL (migrations, health checks) must land in the same schema as Prisma's queries.
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  if (schema) {
    const client = await pool.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      client.release();
    }
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, schema ? { schema } : {}) });
  const held = new Set<pg.Client>();
  let closing = false;
  return {
    kind: 'postgres',
    prisma,
    sql: {
      async exec(script) {
        await pool.query(script);
      },
      async query<T>(text: string, params: unknown[] = [], options?: QueryOptions) {
        const r = await pool.query(pgQuery(text, params, options));
        return r.rows as T[];
      },
      async transaction(fn) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const out = await fn({
            exec: async (s) => void (await client.query(s)),
            query: async <T>(t: string, p: unknown[] = [], o?: QueryOptions) => (await client.query(pgQuery(t, p, o))).rows as T[],
          });
          await client.query('COMMIT');
          return out;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        } finally {
          client.release();
        }
      },
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async holdExclusive(name, onLost) {
      const key = `${schema ?? 'public'}:${name}`;
      // Named, so operators (and tests) can find the lock holder in pg_stat_activity.
      const client = new pg.Client({
        connectionString: url,
        application_name: `lock:${key}`.slice(0, 63),
        // Keepalives both ways, so a dead peer is found in about 25 s instead of the kernel's
        // two hours: this process learns it lost the lock, and PostgreSQL frees the lock of
        // a vanished host so a standby can take over (the server side is set per session).
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
        options: '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3',
      });
      let lost = false;
      const lose = (err: Error) => {
        held.delete(client);
        if (closing || lost) return;
        lost = true;
        onLost(err);
      };
      // Before connect(): a connection refused or reset while locking must not go unhandled.
      client.on('error', lose);
      client.on('end', () => lose(new Error(`the connection holding the lock ${key} ended`)));
      const release = async () => {
        lost = true;
        held.delete(client);
        await client.end().catch(() => undefined);
      };
      try {
        await client.connect();
        const rows = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
        if (rows.rows[0]?.ok) {
          held.add(client);
          return { release };
        }
      } catch (err) {
        await release();
        throw err;
      }
      await release();
      return undefined;
    },
    async close() {
      closing = true;
      await prisma.$disconnect();
      await Promise.allSettled([...held].map((c) => c.end()));
      await pool.end();
    },
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  const dir = path.resolve(dataDir, 'pglite');
  await mkdir(dir, { recursive: true });
  const client = await PGlite.create(dir);
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(client) });
  return {
    kind: 'pglite',
    prisma,
    sql: {
      async exec(script) {
        await client.exec(script);
      },
      async query<T>(text: string, params: unknown[] = []) {
        return (await client.query<T>(text, params)).rows;
      },
      async transaction(fn) {
        return client.transaction((tx) =>
          fn({
            exec: async (s) => void (await tx.exec(s)),
            query: async <T>(t: string, p: unknown[] = []) => (await tx.query<T>(t, p)).rows,
          }),
        );
      },
    },
    async ping() {
      await client.query('SELECT 1');
    },
    // An embedded database belongs to one process already.
    async holdExclusive() {
      return { release: async () => undefined };
    },
    async close() {
      await prisma.$disconnect();
      await client.close();
    },
  };
}
