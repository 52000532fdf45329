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
].join('\n');
// The reading of the numbers is written by hand and kept across runs.
const notes = await readFile(path.join(dir, 'notes.md'), 'utf8').catch(() => '');
await writeFile(
  path.resolve(dir, '../BENCHMARKS.md'),
  `# Benchmarks\n\nWritten by \`npm run bench\`.\n\n## Machine\n\n${machine}\n\n${sections.join('\n\n')}\n${notes ? `\n${notes.trim()}\n` : ''}`,
);
process.exit(0);
