import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import { DEFAULT_DATABASE_TIMEOUTS, type Config, type DatabaseTimeouts } from '../config.ts';
import { isReadTimeout } from './databaseErrors.ts';
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
  const db = config.kind === 'postgres' ? await openPostgres(config.url, config.schema, config.timeouts ?? DEFAULT_DATABASE_TIMEOUTS) : await openPglite(config.dataDir);
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
function pgQuery(text: string, values: unknown[], options?: QueryOptions): pg.QueryConfig & { query_timeout?: number } {
  return {
    text,
    values,
    ...(options?.prepare ? { name: statementName(text) } : {}),
    // pg reads a timeout of 0 as "the pool's": no bound at all is the longest timer Node keeps.
    ...(options?.timeoutMs !== undefined ? { query_timeout: Math.max(1, Math.min(options.timeoutMs, 2 ** 31 - 1)) } : {}),
  };
}

/**
 * Names already worked out: hashing a projection statement's text (kilobytes) cost about
 * 9 µs a run. Prepared texts are few (one per combination of a batch's parts); the bound
 * only keeps a caller with ever-new texts from growing it for ever.
 */
const statementNames = new Map<string, string>();
const STATEMENT_NAMES_MAX = 1_000;

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    if (statementNames.size >= STATEMENT_NAMES_MAX) statementNames.clear();
    name = createHash('sha1').update(text).digest('base64url');
    statementNames.set(text, name);
  }
  return name;
}

/** How long past its statement timeout the client waits for an answer before it gives the connection up. */
const READ_MARGIN_MS = 500;

/**
 * Keepalives both ways, so a peer that vanished is found in about 25 s instead of the
 * kernel's two hours, on an idle connection too; PostgreSQL sets its side per session.
 */
const KEEPALIVE = { keepAlive: true, keepAliveInitialDelayMillis: 10_000 } as const;
const SERVER_KEEPALIVE = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3';

/**
 * Every wait on PostgreSQL is bounded (docs/scaling.md, "Bounded waits on PostgreSQL").
 * Keepalives find a dead peer only while nothing is in flight, and a connection that is
 * up but silent (a partition that drops packets, a proxy that stops forwarding) is never
 * found by them: so PostgreSQL ends a statement at `statementMs` and a transaction left
 * idle at `idleInTransactionMs`, and the client gives up a statement that has not answered
 * `READ_MARGIN_MS` after that, or a connection not open after `connectMs`.
 */
function connectionConfig(url: string, timeouts: DatabaseTimeouts, schema?: string): pg.ClientConfig {
  return {
    connectionString: url,
    ...KEEPALIVE,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    query_timeout: timeouts.statementMs + READ_MARGIN_MS,
    // Raw SQL (migrations, health checks) must land in the same schema as Prisma's queries.
    options: `${SERVER_KEEPALIVE}${schema ? ` -c search_path="${schema}"` : ''}`,
  };
}

type ClientInternals = { _ending: boolean; connection: { stream: { destroy(): void; resetAndDestroy?(): void } } };

/**
 * Ends a connection at once, without the goodbye pg's end() waits for (which a silent
 * peer never answers). Marked as ending first: pg then fails what was queued on it
 * instead of raising an error event nobody listens for, and the pool drops it on release.
 * With a reset, not a close: a close still delivers what was sent, so a statement held up
 * in a partition (a journal append given up at its deadline) would run once the network
 * is back, before recovery moves the fence; a reset discards it.
 */
function destroyConnection(client: pg.Client): void {
  const internals = client as unknown as ClientInternals;
  internals._ending = true;
  const stream = internals.connection.stream;
  if (stream.resetAndDestroy) stream.resetAndDestroy();
  else stream.destroy();
}

/**
 * pg answers a query it stopped waiting for but keeps its connection, still waiting for
 * the answer, and a pooled one would go back to the pool and hold up the next query
 * behind it. A connection that went silent is destroyed instead.
 */
function destroyOnReadTimeout(client: pg.Client): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const check = (err: unknown) => {
    if (isReadTimeout(err)) destroyConnection(client);
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const callback = args[args.length - 1];
    if (typeof callback === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => {
        check(err);
        (callback as (err: unknown, res: unknown) => void)(err, res);
      };
      return query(...args);
    }
    const out = query(...args);
    if (out instanceof Promise) out.catch(check);
    return out;
  };
}

function guardConnections(pool: pg.Pool): void {
  // An idle connection that fails (a reset, PostgreSQL restarting) is dropped by the pool,
  // which then emits the error on itself: without a listener that ends the process. The
  // next query opens a new connection. (Prisma's adapter listens on the pool it is given;
  // the projection's pool has no Prisma, and a reset of it ended the process.)
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    destroyOnReadTimeout(client);
    // A connection can fail while checked out but between queries (PostgreSQL ending a
    // transaction left idle, a reset): pg then emits an error event, which without a
    // listener would end the process. The caller learns it from its next query instead
    // ("not queryable"), and the pool drops the connection on release.
    client.on('error', () => undefined);
  });
}

async function openPostgres(url: string, schema: string | undefined, timeouts: DatabaseTimeouts): Promise<Database> {
  const pool = new pg.Pool({ ...connectionConfig(url, timeouts, schema), max: 20 });
  guardConnections(pool);
  // Statements with `relaxedCommit` (the projection, one batch at a time): a commit there
  // costs PostgreSQL a WAL flush of its own, as much CPU as the journal append it derives from.
  const base = connectionConfig(url, timeouts, schema);
  const relaxed = new pg.Pool({ ...base, options: `${base.options} -c synchronous_commit=off`, max: 2 });
  guardConnections(relaxed);
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
      async exec(script, options) {
        await pool.query(pgQuery(script, [], options));
      },
      async query<T>(text: string, params: unknown[] = [], options?: QueryOptions) {
        const r = await (options?.relaxedCommit ? relaxed : pool).query<pg.QueryResultRow>(pgQuery(text, params, options));
        return r.rows as T[];
      },
      async transaction(fn) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const out = await fn({
            exec: async (s, o) => void (await client.query(pgQuery(s, [], o))),
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
        // Bounded like the pool's: taking the lock again must not hang on a silent network.
        // The keepalives also tell this process it lost the lock, and PostgreSQL to free the
        // lock of a vanished host so a standby can take over.
        ...connectionConfig(url, timeouts),
        application_name: `lock:${key}`.slice(0, 63),
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
        // A connection that stopped answering is not waited for: its session (and the lock)
        // ends on PostgreSQL's side when its keepalives find this end gone.
        const ended = client.end().catch(() => undefined);
        const silent = setTimeout(() => destroyConnection(client), timeouts.connectMs);
        await ended;
        clearTimeout(silent);
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
      await Promise.all([pool.end(), relaxed.end()]);
    },
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  const dir = path.resolve(dataDir, 'pglite');
  await mkdir(dir, { recursive: true });
  // pg_trgm: the migrations install it for the template title search index.
  const client = await PGlite.create(dir, { extensions: { pg_trgm } });
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
