import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export interface QueryOptions {
  /**
   * The statement runs often with this same text: PostgreSQL keeps it parsed and planned
   * per connection instead of doing that work on every run. PGlite ignores it.
   */
  prepare?: boolean;
  /**
   * Gives the statement up (and destroys its connection) when it has not answered within
   * this many milliseconds (Infinity: never), in place of the pool's bound. PGlite ignores
   * it: it has no network to go silent.
   */
  timeoutMs?: number;
  /**
   * The statement only writes what can be derived again from rows committed durably before
   * it (the projection of the journal): its commit does not wait for the WAL to reach the
   * disk. A crash of PostgreSQL may lose it, never anything committed after it (the WAL is
   * flushed in order), and whoever derived it finds that out and derives it again. PGlite
   * ignores it.
   */
  relaxedCommit?: boolean;
}

export interface SqlQueryable {
  exec(script: string, options?: Pick<QueryOptions, 'timeoutMs'>): Promise<void>;
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
}

export interface SqlRunner extends SqlQueryable {
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
}

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/** Same table Prisma's `migrate deploy` keeps, so the native CLI stays usable where it exists. */
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Any constant: serialises concurrent runners (two API processes starting together). */
const MIGRATION_LOCK_KEY = 72_707_369;

export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/**
 * Applies the migrations not yet recorded, each in its own transaction, in name order.
 * A recorded migration whose file changed since is an error: history is never rewritten.
 */
export async function applyMigrations(db: SqlRunner, dir: string): Promise<string[]> {
  const files = await readMigrations(dir);
  return db.transaction(async (tx) => {
    // Not bounded like a request's statements: a migration may rewrite a large table, and
    // waits here while another process applies the same ones.
    const unbounded = { timeoutMs: Number.POSITIVE_INFINITY };
    await tx.exec('SET LOCAL statement_timeout = 0');
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY], unbounded);
    await tx.exec(CREATE_TABLE);
    const done = await tx.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL',
    );
    const applied = new Map(done.map((r) => [r.migration_name, r.checksum]));
    const ran: string[] = [];
    for (const file of files) {
      const known = applied.get(file.name);
      if (known !== undefined) {
        if (known !== file.checksum) {
          throw new Error(`migration ${file.name} was changed after it was applied`);
        }
        continue;
      }
      await tx.exec(file.sql, unbounded);
      await tx.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), 1)`,
        [randomUUID(), file.checksum, file.name],
      );
      ran.push(file.name);
    }
    return ran;
  });
}
