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

/** Every relative import of every source file, resolved to a path under src/. */
async function imports(): Promise<{ file: string; target: string }[]> {
  const out: { file: string; target: string }[] = [];
  for (const file of await sources(src)) {
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/from '(\.[^']+)'/g)) out.push({ file: path.relative(src, file), target: path.relative(src, path.resolve(path.dirname(file), m[1] as string)) });
  }
  return out;
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

  it('presenters import only the domain, service views and generated enums: never a transport or infra', async () => {
    const breaches = (await imports()).filter(({ file, target }) => file.startsWith('presenters/') && /^(infra|transport|auth)\//.test(target));
    expect(breaches).toEqual([]);
  });
});
