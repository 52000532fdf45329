import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Turns a V8 .cpuprofile (`node --cpu-prof`) into what a review can read without the raw
 * profile (tens of MB): a markdown summary of self time by function and by origin (our
 * code, a package, Node's internals, GC), and a flame graph as a standalone SVG.
 *
 *   node --import tsx bench/tools/cpuprofile.ts <file.cpuprofile> <out-prefix> [--from s] [--to s] [--title text]
 *
 * --from/--to keep the samples between those seconds of the profile (a bench's stage
 * rather than its start-up). Writes <out-prefix>.md and <out-prefix>.svg.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface Frame {
  name: string;
  origin: string;
  parent: number | undefined;
}

const IDLE = new Set(['(idle)']);

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Where a frame's code comes from: our source, a package, Node itself, or V8's bookkeeping. */
function originOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] as string);
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return `src/${url.slice(src + 5).split('/').slice(0, -1).join('/') || '.'}`;
  return path.basename(url);
}

function nameOf(frame: CallFrame): string {
  const fn = frame.functionName || '(anonymous)';
  if (!frame.url) return fn;
  const nm = frame.url.lastIndexOf('/node_modules/');
  const src = frame.url.indexOf('/src/');
  const file = nm >= 0 ? frame.url.slice(nm + 14) : src >= 0 ? frame.url.slice(src + 1) : frame.url.replace(/^file:\/\//, '');
  return `${fn} ${file}:${frame.lineNumber + 1}`;
}

const us = (x: number) => `${(x / 1000).toFixed(0)} ms`;
const share = (x: number, total: number) => `${((100 * x) / total).toFixed(1)}%`;
const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface FlameNode {
  name: string;
  value: number;
  children: Map<string, FlameNode>;
}

/** A flame graph (root at the bottom), widths in sample time, names in tooltips and where they fit. */
function flameSvg(root: FlameNode, title: string): string {
  const width = 1600;
  const rowHeight = 16;
  const minWidth = 0.4;
  const rects: string[] = [];
  let depthMax = 0;
  const walk = (node: FlameNode, x: number, depth: number) => {
    const w = (node.value / root.value) * width;
    if (w < minWidth) return;
    depthMax = Math.max(depthMax, depth);
    rects.push(`${depth}|${x}|${w}|${node.name}|${node.value}`);
    let cx = x;
    for (const child of [...node.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      walk(child, cx, depth + 1);
      cx += (child.value / root.value) * width;
    }
  };
  walk(root, 0, 0);
  const height = (depthMax + 1) * rowHeight + 40;
  const body = rects.map((r) => {
    const [d, x, w, name, value] = r.split('|') as [string, string, string, string, string];
    const y = height - (Number(d) + 1) * rowHeight;
    const hue = name.includes(' src/') ? 200 : name.includes('node_modules') || /^[@a-z]/.test(name.split(' ')[1] ?? '') ? 30 : 0;
    const label = Number(w) > 40 ? `<text x="${Number(x) + 3}" y="${y + 12}">${escapeXml(name.slice(0, Math.floor(Number(w) / 7)))}</text>` : '';
    return `<g><title>${escapeXml(name)} (${share(Number(value), root.value)})</title><rect x="${Number(x).toFixed(1)}" y="${y}" width="${Number(w).toFixed(1)}" height="${rowHeight - 1}" fill="hsl(${hue},70%,${60 + (Number(d) % 3) * 8}%)"/>${label}</g>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="11">`,
    `<text x="4" y="16" font-size="14">${escapeXml(title)}</text>`,
    ...body,
    '</svg>',
  ].join('\n');
}

async function main() {
  const [file, prefix] = process.argv.slice(2);
  if (!file || !prefix) throw new Error('usage: cpuprofile.ts <file.cpuprofile> <out-prefix> [--from s] [--to s] [--title text]');
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const from = Number(arg('--from') ?? 0) * 1e6;
  const to = Number(arg('--to') ?? Infinity) * 1e6;
  const title = arg('--title') ?? path.basename(file);

  const frames = new Map<number, Frame>();
  for (const n of profile.nodes) frames.set(n.id, { name: nameOf(n.callFrame), origin: originOf(n.callFrame), parent: undefined });
  for (const n of profile.nodes) for (const c of n.children ?? []) (frames.get(c) as Frame).parent = n.id;

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  const perSecond = new Map<number, number>();
  const root: FlameNode = { name: 'all', value: 0, children: new Map() };
  let total = 0;
  let idle = 0;
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < from || t > to) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const leaf = frames.get(profile.samples[i] as number) as Frame;
    if (IDLE.has(leaf.name)) {
      idle += dt;
      continue;
    }
    total += dt;
    perSecond.set(Math.floor(t / 1e6), (perSecond.get(Math.floor(t / 1e6)) ?? 0) + dt);
    self.set(leaf.name, (self.get(leaf.name) ?? 0) + dt);
    byOrigin.set(leaf.origin, (byOrigin.get(leaf.origin) ?? 0) + dt);
    const stack: string[] = [];
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = frames.get(id)?.parent) {
      const f = frames.get(id) as Frame;
      if (f.name !== '(root)') stack.push(f.name);
    }
    stack.reverse();
    for (const name of new Set(stack)) inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
    let node = root;
    node.value += dt;
    for (const name of stack) {
      let next = node.children.get(name);
      if (!next) node.children.set(name, (next = { name, value: 0, children: new Map() }));
      next.value += dt;
      node = next;
    }
  }
  const top = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  const md = [
    `# ${title}`,
    '',
    `Busy ${us(total)} of ${us(total + idle)} sampled (${share(total, total + idle)} of the main thread), seconds ${(from / 1e6).toFixed(0)} to ${Number.isFinite(to) ? (to / 1e6).toFixed(0) : 'end'} of the profile.`,
    `Busy time per second of the profile: ${[...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([s, v]) => `${s}:${Math.round(v / 10_000)}%`).join(' ')}`,
    '',
    '## Self time by origin',
    '',
    '| origin | self | share of busy |',
    '|---|---:|---:|',
    ...top(byOrigin, 30).map(([k, v]) => `| ${k} | ${us(v)} | ${share(v, total)} |`),
    '',
    '## Self time by function (top 40)',
    '',
    '| function | self | share of busy |',
    '|---|---:|---:|',
    ...top(self, 40).map(([k, v]) => `| \`${k}\` | ${us(v)} | ${share(v, total)} |`),
    '',
    '## Inclusive time by function (top 60)',
    '',
    '| function | inclusive | share of busy |',
    '|---|---:|---:|',
    ...top(inclusive, 60).map(([k, v]) => `| \`${k}\` | ${us(v)} | ${share(v, total)} |`),
    '',
  ].join('\n');
  await writeFile(`${prefix}.md`, md);
  await writeFile(`${prefix}.svg`, flameSvg(root, `${title}: busy ${us(total)}, widths are shares of busy time`));
}

await main();
