import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const src = path.resolve(import.meta.dirname, '../../src');

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? (e.name === 'generated' ? [] : sources(path.join(dir, e.name))) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [])),
  );
  return nested.flat();
}

/**
 * Every relative import of every source file (static, type-only, re-export, side-effect and
 * dynamic), resolved to a path under src/.
 */
async function imports(): Promise<{ file: string; target: string }[]> {
  const out: { file: string; target: string }[] = [];
  for (const file of await sources(src)) {
    const text = await readFile(file, 'utf8');
    const add = (specifier: string) => out.push({ file: path.relative(src, file), target: path.relative(src, path.resolve(path.dirname(file), specifier)) });
    for (const m of text.matchAll(/\b(?:import|export)\b[^;']*?\bfrom\s*'(\.[^']+)'/g)) add(m[1] as string);
    for (const m of text.matchAll(/\bimport\s*\(?\s*'(\.[^']+)'/g)) add(m[1] as string);
  }
  return out;
}

/** One import cycle of the graph as the files along it, first file repeated at the end; undefined when there is none. */
function findCycle(edges: { file: string; target: string }[]): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const { file, target } of edges) next.set(file, [...(next.get(file) ?? []), target]);
  const done = new Set<string>();
  const trail: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): string[] | undefined => {
    if (onPath.has(file)) return [...trail.slice(trail.indexOf(file)), file];
    if (done.has(file)) return undefined;
    trail.push(file);
    onPath.add(file);
    for (const target of next.get(file) ?? []) {
      const cycle = visit(target);
      if (cycle) return cycle;
    }
    trail.pop();
    onPath.delete(file);
    done.add(file);
    return undefined;
  };
  for (const file of next.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('layering', () => {
  it('outside services/trading, only its index is imported: the engine is used through its public interface', async () => {
    const breaches = (await imports()).filter(({ file, target }) => target.startsWith('services/trading/') && !file.startsWith('services/trading/') && target !== 'services/trading/index.ts');
    expect(breaches).toEqual([]);
  });

  it('the domain layer imports nothing from infra, services or transport', async () => {
    const breaches = (await imports()).filter(({ file, target }) => file.startsWith('domain/') && /^(infra|services|transport|auth)\//.test(target));
    expect(breaches).toEqual([]);
  });

  it('no import cycle between source files, type imports included: every module is fully loaded before the modules that import it run', async () => {
    expect(findCycle([{ file: 'a.ts', target: 'b.ts' }, { file: 'b.ts', target: 'c.ts' }, { file: 'c.ts', target: 'b.ts' }])).toEqual(['b.ts', 'c.ts', 'b.ts']);
    // Type imports count too: erased at run time, they still bind two modules' designs into
    // one. A service area is handed the topic bus typed by its own topics (topicBus.ts), and
    // only the composition root names the set of every topic (topics.ts).
    const cycle = findCycle(await imports());
    expect(cycle, `import cycle: ${cycle?.join(' -> ')}`).toBeUndefined();
  });

  it('GraphQL imports nothing from REST: what both transports share lives beside them in transport/', async () => {
    const breaches = (await imports()).filter(({ file, target }) => file.startsWith('transport/graphql/') && target.startsWith('transport/rest/'));
    expect(breaches).toEqual([]);
  });

  it('REST imports nothing from infra: routes reach the database and Redis only through services', async () => {
    const breaches = (await imports()).filter(({ file, target }) => file.startsWith('transport/rest/') && target.startsWith('infra/'));
    expect(breaches).toEqual([]);
  });

  it('a GraphQL types file defines at most one object type, beside its own inputs and enums (one schema file per type)', async () => {
    const objectTypes = /\bbuilder\s*\.\s*(?:objectRef|objectType|prismaObject|prismaNode|node|interfaceRef|interfaceType|unionType)\s*[<(]/g;
    expect('builder.objectRef<X>(\'A\').implement(); builder.prismaObject(\'B\', {});'.match(objectTypes)).toHaveLength(2);
    const crowded: string[] = [];
    for (const file of await sources(path.join(src, 'transport/graphql/types'))) {
      const count = (await readFile(file, 'utf8')).match(objectTypes)?.length ?? 0;
      const name = path.relative(src, file);
      if (count > 1) crowded.push(`${name}: ${count} object types`);
    }
    expect(crowded).toEqual([]);
  });

  it('presenters import only the domain, service views and generated enums: never a transport or infra', async () => {
    const breaches = (await imports()).filter(({ file, target }) => file.startsWith('presenters/') && /^(infra|transport|auth)\//.test(target));
    expect(breaches).toEqual([]);
  });
});
