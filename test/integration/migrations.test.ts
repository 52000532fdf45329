import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_MIGRATIONS_DIR, openDatabase } from '../../src/infra/database.ts';
import { applyMigrations, readMigrations } from '../../src/infra/migrations.ts';
import { diffDatamodels } from '../../scripts/lib/schema-engine.ts';
import { describeSchema } from '../helpers/catalog.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { dropSchema, tempDir, uniqueName } from '../helpers/infra.ts';

const schemas: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
  for (const s of schemas) await dropSchema(s);
});

async function emptySchemaDb() {
  const schema = uniqueName('m');
  schemas.push(schema);
  const db = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL, schema }, { migrate: false });
  cleanups.push(() => db.close());
  return { schema, db };
}

describe('migrations', () => {
  it('build exactly the schema that schema.prisma describes', async () => {
    const datamodel = await readFile(path.resolve(import.meta.dirname, '../../schema.prisma'), 'utf8');

    const fromMigrations = await emptySchemaDb();
    await applyMigrations(fromMigrations.db.sql, DEFAULT_MIGRATIONS_DIR);

    const fromDatamodel = await emptySchemaDb();
    await fromDatamodel.db.sql.exec(await diffDatamodels(null, datamodel, TEST_DATABASE_URL));

    const expected = await describeSchema(fromDatamodel.schema);
    expect((expected.columns as unknown[]).length).toBeGreaterThan(50);
    expect(await describeSchema(fromMigrations.schema)).toEqual(expected);
  });

  it('keep the datamodel snapshot of the last migration in step with schema.prisma', async () => {
    const datamodel = await readFile(path.resolve(import.meta.dirname, '../../schema.prisma'), 'utf8');
    const snapshot = await readFile(path.join(DEFAULT_MIGRATIONS_DIR, 'datamodel.prisma'), 'utf8');
    expect(snapshot, 'run `npm run db:migration:new -- <name>`').toBe(datamodel);
  });

  it('are recorded in _prisma_migrations and applied once', async () => {
    const { db } = await emptySchemaDb();
    const files = await readMigrations(DEFAULT_MIGRATIONS_DIR);
    expect(await applyMigrations(db.sql, DEFAULT_MIGRATIONS_DIR)).toEqual(files.map((f) => f.name));
    expect(await applyMigrations(db.sql, DEFAULT_MIGRATIONS_DIR)).toEqual([]);
    const rows = await db.sql.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(files.map((f) => [f.name, f.checksum]));
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
  });

  it('refuse to run when an applied migration was edited afterwards', async () => {
    const { db } = await emptySchemaDb();
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
    await applyMigrations(db.sql, dir);
    const [first] = await readMigrations(dir);
    await writeFile(path.join(dir, first!.name, 'migration.sql'), `${first!.sql}\n-- edited\n`);
    await expect(applyMigrations(db.sql, dir)).rejects.toThrow(/was changed after it was applied/);
  });

  it('apply a failing migration not at all', async () => {
    const { db } = await emptySchemaDb();
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    await mkdir(path.join(dir, '0001_ok'));
    await writeFile(path.join(dir, '0001_ok', 'migration.sql'), 'CREATE TABLE "A" (id int);');
    await mkdir(path.join(dir, '0002_bad'));
    await writeFile(path.join(dir, '0002_bad', 'migration.sql'), 'CREATE TABLE "B" (id int); SELECT nope;');
    await expect(applyMigrations(db.sql, dir)).rejects.toThrow();
    const tables = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('A', 'B')`,
    );
    expect(tables[0]?.n).toBe(0);
  });
});
