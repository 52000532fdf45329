import { readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Runs every bench/*.bench.ts (or those named on the command line) and writes
 * BENCHMARKS.md with the machine's description. Each bench reports against a baseline
 * measured in the same run.
 */
const dir = import.meta.dirname;
const only = process.argv.slice(2);
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts') && (only.length === 0 || only.some((o) => f.includes(o))));
const sections: string[] = [];
for (const file of files.sort()) {
  console.log(`running ${file}`);
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { run(): Promise<string> };
  const section = await mod.run();
  console.log(section);
  sections.push(section);
}
const cpus = os.cpus();
const machine = [
  `- date: ${new Date().toISOString()}`,
  `- node: ${process.version}, ${os.platform()} ${os.arch()}`,
  `- cpu: ${cpus.length} x ${cpus[0]?.model ?? 'unknown'}`,
  `- memory: ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
  '- shared, noisy machine: read the ratios to each baseline, not the absolute numbers',
  ...(only.length > 0 ? [`- this run: ${files.join(', ')}; the other sections keep the numbers of the run that last wrote them`] : []),
].join('\n');
// The reading of the numbers is written by hand and kept across runs.
const notes = await readFile(path.join(dir, 'notes.md'), 'utf8').catch(() => '');
// A run of some benches replaces their sections and keeps the others' last results.
const target = path.resolve(dir, '../BENCHMARKS.md');
const previous = only.length > 0 ? await readFile(target, 'utf8').catch(() => '') : '';
const heading = (section: string) => section.split('\n', 1)[0] as string;
const kept = previous
  .split(/^(?=### )/m)
  .slice(1)
  .map((section) => section.split(/^## /m)[0]?.trimEnd() as string)
  .filter((section) => !sections.some((s) => heading(s) === heading(section)));
const all = [...kept, ...sections].sort((a, b) => order(a) - order(b));
function order(section: string): number {
  const i = previous.indexOf(heading(section));
  return i >= 0 ? i : Number.MAX_SAFE_INTEGER;
}
await writeFile(target, `# Benchmarks\n\nWritten by \`npm run bench\`.\n\n## Machine\n\n${machine}\n\n${all.join('\n\n')}\n${notes ? `\n${notes.trim()}\n` : ''}`);
process.exit(0);
