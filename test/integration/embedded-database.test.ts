import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/infra/database.ts';
import { readMigrations } from '../../src/infra/migrations.ts';
import { DEFAULT_MIGRATIONS_DIR } from '../../src/infra/database.ts';
import { tempDir } from '../helpers/infra.ts';

/** The `npm start` default: PGlite under DATA_DIR, same migrations, same Prisma client. */
describe('embedded PGlite database', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it('applies the migrations, serves Prisma, and keeps data across reopening', async () => {
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    const expected = (await readMigrations(DEFAULT_MIGRATIONS_DIR)).map((m) => m.name);

    const first = await openDatabase({ kind: 'pglite', dataDir: dir });
    expect(first.kind).toBe('pglite');
    const created = await first.prisma.account.create({ data: { publicId: 'EmbeddedRoot1', kind: 'ROOT' } });
    expect(created.id).toBeTypeOf('bigint');
    await first.close();

    const second = await openDatabase({ kind: 'pglite', dataDir: dir });
    try {
      const found = await second.prisma.account.findUnique({ where: { publicId: 'EmbeddedRoot1' } });
      expect(found?.id).toBe(created.id);
      const applied = await second.sql.query<{ migration_name: string }>(
        'SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name',
      );
      expect(applied.map((r) => r.migration_name)).toEqual(expected);
      await second.ping();
    } finally {
      await second.close();
    }
  });
});
