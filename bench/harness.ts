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
