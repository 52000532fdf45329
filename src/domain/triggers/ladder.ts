/**
 * Ladder (issue 13): a quantity spread over `levels` post-only limit orders between two
 * prices. Pure: quantities in base units (the lot is one unit), prices in Q9.
 */
export type Distribution = 'FLAT' | 'ASCENDING' | 'DESCENDING';

export interface LadderLevel {
  price: bigint;
  qty: bigint;
}

/**
 * The levels, lowest price first: prices evenly spaced from `min` to `max` on the tick grid
 * (distinct, so the range must hold `levels` ticks); sizes weighted by the distribution
 * (ASCENDING: more at higher prices), summing exactly to `qty`: each level gets its
 * weight's share rounded down, and the lots left over go one each to the heaviest levels.
 */
export function ladderLevels(levels: number, min: bigint, max: bigint, tickSize: bigint, qty: bigint, distribution: Distribution): LadderLevel[] {
  const n = BigInt(levels);
  const lo = min - (min % tickSize);
  const ticks = (max - lo) / tickSize;
  if (levels < 1 || ticks < n - 1n) throw new RangeError('the price range holds fewer ticks than levels');
  const prices = Array.from({ length: levels }, (_, i) => (levels === 1 ? lo : lo + ((ticks * BigInt(i)) / (n - 1n)) * tickSize));
  const weights = Array.from({ length: levels }, (_, i) => BigInt(distribution === 'FLAT' ? 1 : distribution === 'ASCENDING' ? i + 1 : levels - i));
  const total = weights.reduce((a, b) => a + b, 0n);
  const sizes = weights.map((w) => (qty * w) / total);
  let left = qty - sizes.reduce((a, b) => a + b, 0n);
  // Heaviest first; among equals, the level nearest the market first (the end a trader fills first).
  const order = weights.map((w, i) => ({ w, i })).sort((a, b) => (a.w === b.w ? (distribution === 'ASCENDING' ? b.i - a.i : a.i - b.i) : a.w > b.w ? -1 : 1));
  for (let k = 0; left > 0n; k = (k + 1) % levels, left--) sizes[(order[k] as { i: number }).i] = (sizes[(order[k] as { i: number }).i] as bigint) + 1n;
  return prices.map((price, i) => ({ price, qty: sizes[i] as bigint }));
}
