import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The service shape of issue 27: a folder per service, a file per operation named by its
 * operationId with its input schema (`<op>.schema.ts`) beside it, and no source file in
 * services/ over 600 lines.
 */

const src = path.resolve(import.meta.dirname, '../../src');

/** The service areas (keys of the service table) already in folders, and their folder under services/. */
const FOLDERS: Record<string, string> = {
  chart: 'chart',
  subaccounts: 'accounts',
  ledger: 'ledger',
  addressBook: 'addressBook',
  apiKeys: 'apiKeys',
  layouts: 'layouts',
  whiteboards: 'whiteboards',
};

const MAX_LINES = 600;
/** A closure (or any function) longer than this hides a component that wants a name and an interface. */
const MAX_CLOSURE_LINES = 150;

/** Every /v1 route as (operationId, service area), read from the route files. */
async function routes(): Promise<{ file: string; operationId: string; area: string | undefined }[]> {
  const dir = path.join(src, 'transport/rest/routes');
  const out: { file: string; operationId: string; area: string | undefined }[] = [];
  for (const file of await readdir(dir)) {
    const text = await readFile(path.join(dir, file), 'utf8');
    // `const chart = s.chart;`: handlers may call the service through a local name.
    const aliases = new Map([...text.matchAll(/const (\w+) = s\.(\w+);/g)].map((m) => [m[1] as string, m[2] as string]));
    for (const block of text.split('defineRoute(').slice(1)) {
      const operationId = /operationId: '(\w+)'/.exec(block)?.[1];
      if (!operationId) continue;
      const handler = block.slice(block.indexOf('handler:'));
      const direct = /\bs\.(\w+)\./.exec(handler)?.[1];
      const aliased = [...aliases.keys()].find((a) => new RegExp(`\\b${a}\\.\\w+\\(`).test(handler));
      out.push({ file, operationId, area: direct ?? (aliased ? aliases.get(aliased) : undefined) });
    }
  }
  return out;
}

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? (e.name === 'generated' ? [] : sources(path.join(dir, e.name))) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [])),
  );
  return nested.flat();
}

describe('service shape', () => {
  it('reads the route table: every foldered area has routes', async () => {
    const all = await routes();
    for (const area of Object.keys(FOLDERS)) expect(all.filter((r) => r.area === area), area).not.toEqual([]);
  });

  it('every route of a foldered service has <operationId>.ts and <operationId>.schema.ts in its folder', async () => {
    const missing = (await routes())
      .filter((r) => r.area !== undefined && r.area in FOLDERS)
      .flatMap((r) => {
        const folder = path.join(src, 'services', FOLDERS[r.area as string] as string);
        return [`${r.operationId}.ts`, `${r.operationId}.schema.ts`].filter((f) => !existsSync(path.join(folder, f))).map((f) => `${r.file} ${r.operationId}: services/${FOLDERS[r.area as string]}/${f}`);
      });
    expect(missing).toEqual([]);
  });

  it('every /v1 route takes its request schemas from an <operationId>.schema.ts module, which GraphQL parses with too', async () => {
    const dir = path.join(src, 'transport/rest/routes');
    const inline: string[] = [];
    for (const file of await readdir(dir)) {
      // The operator API (/operator/v1) is not a spec operation and has no GraphQL counterpart.
      if (file === 'operator.ts') continue;
      const text = await readFile(path.join(dir, file), 'utf8');
      // Names imported from a schema module, directly or through an area's index that
      // re-exports it (trading is used only through its index).
      const names = (list: string) => list.split(',').map((n) => n.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop() as string);
      const fromSchemas = new Set<string>();
      for (const m of text.matchAll(/import \{([^}]+)\} from '([^']+)';/g)) {
        const [list, from] = [m[1] as string, m[2] as string];
        if (from.endsWith('.schema.ts')) for (const n of names(list)) fromSchemas.add(n);
        else if (from.endsWith('/index.ts')) {
          const index = await readFile(path.resolve(dir, from), 'utf8');
          const reexported = new Set([...index.matchAll(/export \{([^}]+)\} from '[^']+\.schema\.ts';/g)].flatMap((r) => names(r[1] as string)));
          for (const n of names(list)) if (reexported.has(n)) fromSchemas.add(n);
        }
      }
      for (const block of text.split('defineRoute(').slice(1)) {
        const operationId = /operationId: '(\w+)'/.exec(block)?.[1];
        for (const m of block.slice(0, block.indexOf('handler:')).matchAll(/\n\s+(params|query|body): ([^\n]+)/g)) {
          // The schema names of the value (one, or one per branch of a template route's ternary).
          const used = [...(m[2] as string).matchAll(/\b([A-Za-z_]\w*)\b(?!\s*[(:])/g)].map((u) => u[1] as string).filter((n) => /(Body|Query|Params)$/.test(n));
          if (used.length === 0 || !used.every((n) => fromSchemas.has(n))) inline.push(`${file} ${operationId}: ${m[1]} ${(m[2] as string).trim()}`);
        }
      }
    }
    expect(inline).toEqual([]);
  });

  it(`no source file under services/ is over ${MAX_LINES} lines`, async () => {
    const root = path.join(src, 'services');
    const over: string[] = [];
    for (const file of await sources(root)) {
      const lines = (await readFile(file, 'utf8')).split('\n').length - 1;
      if (lines > MAX_LINES) over.push(path.relative(root, file));
    }
    expect(over).toEqual([]);
  });

  it(`no function under services/ is over ${MAX_CLOSURE_LINES} lines`, async () => {
    const root = path.join(src, 'services');
    const long: string[] = [];
    for (const file of await sources(root)) {
      const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
          const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          if (last - first + 1 > MAX_CLOSURE_LINES) long.push(`${path.relative(root, file)}:${first + 1} (${last - first + 1} lines)`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(long).toEqual([]);
  });
});
