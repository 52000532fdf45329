import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';

/**
 * Prisma's WebAssembly schema engine, used only to turn one datamodel into another
 * as SQL (the native engine cannot be downloaded on these machines). Its JS glue is
 * loaded by file path because the package's exports hide it.
 */
const require = createRequire(import.meta.url);
const pkgDir = path.dirname(require.resolve('@prisma/schema-engine-wasm'));

interface DiffTargetEmpty {
  tag: 'empty';
}
interface DiffTargetDatamodel {
  tag: 'schemaDatamodel';
  files: { path: string; content: string }[];
}
type DiffTarget = DiffTargetEmpty | DiffTargetDatamodel;

interface WasmSchemaEngine {
  diff(params: {
    from: DiffTarget;
    to: DiffTarget;
    script: boolean;
    exitCode: boolean | null;
    filters: { externalTables: string[]; externalEnums: string[] };
  }): Promise<{ exitCode: number; stdout: string | null }>;
}

let engine: Promise<WasmSchemaEngine> | undefined;

async function loadEngine(connectionString: string): Promise<WasmSchemaEngine> {
  const glue = await import(pathToFileURL(path.join(pkgDir, 'schema_engine_bg.js')).href);
  const bytes = await readFile(path.join(pkgDir, 'schema_engine_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': glue });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  // A datasource is required to build the engine, but diffs between datamodels never query it.
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg({ connectionString }));
  return glue.SchemaEngine.new({ datamodels: undefined }, () => undefined, adapter) as Promise<WasmSchemaEngine>;
}

function target(datamodel: string | null): DiffTarget {
  return datamodel === null ? { tag: 'empty' } : { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: datamodel }] };
}

/**
 * SQL that turns a database built from `from` (null: empty) into one built from `to`.
 * Schema-qualified statements are stripped so the script runs in whatever schema the
 * connection's search_path selects (each test file has its own).
 */
export async function diffDatamodels(
  from: string | null,
  to: string,
  connectionString = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
): Promise<string> {
  engine ??= loadEngine(connectionString);
  const result = await (await engine).diff({
    from: target(from),
    to: target(to),
    script: true,
    exitCode: null,
    filters: { externalTables: [], externalEnums: [] },
  });
  return (result.stdout ?? '').replace(/-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "[^"]+";\n\n?/g, '');
}

export const EMPTY_DIFF = '-- This is an empty migration.';
