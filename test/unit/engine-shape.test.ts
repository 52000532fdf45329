import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const trading = path.resolve(import.meta.dirname, '../../src/services/trading');
const MAX_LINES = 600;

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [])));
  return nested.flat();
}

describe('the trading engine’s shape', () => {
  it(`keeps every source file under src/services/trading/ at most ${MAX_LINES} lines: the engine is split into parts, not grown in one`, async () => {
    const files = await sources(trading);
    // The parts the engine is split into are found, so an empty walk cannot pass.
    expect(files.map((f) => path.relative(trading, f))).toEqual(expect.arrayContaining(['engine.ts', 'core/tradingCore.ts', 'triggers/triggerEngine.ts', 'deadManSwitches.ts', 'recovery.ts']));
    const over: { file: string; lines: number }[] = [];
    for (const file of files) {
      const lines = (await readFile(file, 'utf8')).split('\n').length - 1;
      if (lines > MAX_LINES) over.push({ file: path.relative(trading, file), lines });
    }
    expect(over).toEqual([]);
  });
});
