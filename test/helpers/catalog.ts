import pg from 'pg';
import { TEST_DATABASE_URL } from './env.ts';

/**
 * Everything PostgreSQL knows about the tables of one schema (columns, types,
 * defaults, indexes, constraints, enums), with the schema's name taken out, so two
 * schemas built different ways can be compared for equality.
 */
export async function describeSchema(schema: string): Promise<Record<string, unknown>> {
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    const scrub = (v: unknown) =>
      JSON.parse(JSON.stringify(v).split(`"${schema}".`).join('').split(`${schema}.`).join(''));
    const columns = await client.query(
      `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default,
              character_maximum_length, numeric_precision, numeric_scale, datetime_precision
         FROM information_schema.columns WHERE table_schema = $1 AND table_name <> '_prisma_migrations'
        ORDER BY table_name, column_name`,
      [schema],
    );
    const indexes = await client.query(
      `SELECT tablename, indexname, indexdef FROM pg_indexes
        WHERE schemaname = $1 AND tablename <> '_prisma_migrations' ORDER BY tablename, indexname`,
      [schema],
    );
    const constraints = await client.query(
      `SELECT c.relname AS table_name, k.conname, k.contype, pg_get_constraintdef(k.oid) AS def
         FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname <> '_prisma_migrations' ORDER BY c.relname, k.conname`,
      [schema],
    );
    const enums = await client.query(
      `SELECT t.typname, array_agg(e.enumlabel ORDER BY e.enumsortorder) AS labels
         FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE n.nspname = $1 GROUP BY t.typname ORDER BY t.typname`,
      [schema],
    );
    return scrub({ columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows, enums: enums.rows });
  } finally {
    await client.end();
  }
}
