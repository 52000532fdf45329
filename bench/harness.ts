/**
 * Measures operations per second of a function, in the same process as its baseline, so
 * results can be read as ratios on a shared, noisy machine.
 */
export interface BenchResult {
  name: string;
  opsPerSec: number;
  samples: number;
}

export async function measure(name: string, fn: () => unknown, options: { ms?: number } = {}): Promise<BenchResult> {
  const budget = options.ms ?? 1500;
  for (let i = 0; i < 200; i++) await fn();
  let count = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(budget) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 50; i++) await fn();
    count += 50;
    now = process.hrtime.bigint();
  }
  const seconds = Number(now - start) / 1e9;
  return { name, opsPerSec: count / seconds, samples: count };
}

export function table(results: BenchResult[], baseline: BenchResult): string {
  const rows = results.map(
    (r) => `| ${r.name} | ${Math.round(r.opsPerSec).toLocaleString('en-US')} | ${(r.opsPerSec / baseline.opsPerSec).toFixed(3)} |`,
  );
  return ['| case | ops/s | ratio to baseline |', '|---|---:|---:|', ...rows].join('\n');
}

/** mulberry32: a small seeded generator, so every run offers the same workload. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
