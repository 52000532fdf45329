/**
 * TWAP (issue 13): a quantity worked in equal slices over a duration. Pure, quantities in
 * base units (the lot is one unit), prices in Q9.
 */

/** How many slices: one per interval over the duration, at least one. */
export function plannedSlices(durationMs: number, intervalMs: number): number {
  return Math.max(1, Math.floor(durationMs / intervalMs));
}

/** The most one slice may take: twice an even slice, so a missed slice is caught up over the next ones. */
export function sliceCap(total: bigint, planned: number): bigint {
  const even = (total + BigInt(planned) - 1n) / BigInt(planned);
  return 2n * even;
}

/**
 * The next slice: what is left spread over the slices left (rounded up, so slices that all
 * fill sum exactly to the total, the last taking what is left), capped by `sliceCap`.
 */
export function sliceQty(total: bigint, planned: number, remaining: bigint, slicesLeft: number): bigint {
  if (slicesLeft <= 0 || remaining <= 0n) return 0n;
  const share = (remaining + BigInt(slicesLeft) - 1n) / BigInt(slicesLeft);
  const cap = sliceCap(total, planned);
  return share < cap ? share : cap;
}

/**
 * The price one slice is bounded by: the limit price if given, and no further than the
 * maximum adverse move from `reference`, the price when that slice starts (the spec's
 * "max adverse movement per slice"); on the tick grid, never beyond either bound.
 */
export function slicePrice(side: 'BUY' | 'SELL', reference: bigint, limit: bigint | null, adverse: { bps: number } | { ticks: bigint } | null, tickSize: bigint): bigint {
  const delta = adverse === null ? null : 'bps' in adverse ? (reference * BigInt(adverse.bps)) / 10_000n : adverse.ticks * tickSize;
  if (side === 'BUY') {
    let p = delta === null ? (limit as bigint) : reference + delta;
    if (limit !== null && limit < p) p = limit;
    return p - (p % tickSize);
  }
  let p = delta === null ? (limit as bigint) : reference - delta;
  if (limit !== null && limit > p) p = limit;
  const up = p % tickSize === 0n ? p : p + tickSize - (p % tickSize);
  return up > 0n ? up : tickSize;
}

/** How a TWAP ended: everything filled, part of it, or nothing. */
export function twapOutcome(total: bigint, filled: bigint): 'FILLED' | 'PARTIAL' | 'NONE' {
  return filled >= total ? 'FILLED' : filled === 0n ? 'NONE' : 'PARTIAL';
}
