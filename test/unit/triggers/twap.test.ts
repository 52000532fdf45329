import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plannedSlices, sliceCap, slicePrice, sliceQty, twapOutcome } from '../../../src/domain/triggers/index.ts';

const total = fc.bigInt({ min: 1n, max: 10n ** 12n });
const planned = fc.integer({ min: 1, max: 200 });

/** Works a TWAP through its slices with the given fill fractions (0..1 per slice, in thousandths). */
function work(t: bigint, n: number, fills: number[]) {
  let remaining = t;
  const slices: bigint[] = [];
  for (let k = 0; k < n; k++) {
    const q = sliceQty(t, n, remaining, n - k);
    slices.push(q);
    const filled = (q * BigInt(fills[k % fills.length] ?? 1000)) / 1000n;
    remaining -= filled;
  }
  return { slices, filled: t - remaining };
}

describe('TWAP slicing', () => {
  it('slices that all fill sum exactly to the quantity, none above the cap, none empty while something is left', () => {
    fc.assert(
      fc.property(total, planned, (t, n) => {
        const { slices, filled } = work(t, n, [1000]);
        expect(filled).toBe(t);
        const cap = sliceCap(t, n);
        for (const q of slices) expect(q <= cap).toBe(true);
        expect(slices.reduce((a, b) => a + b, 0n)).toBe(t);
      }),
    );
  });

  it('carries what a slice missed into later slices, up to the cap, and never works more than the quantity', () => {
    fc.assert(
      fc.property(total, planned, fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 20 }), (t, n, fills) => {
        const { slices, filled } = work(t, n, fills);
        expect(filled <= t).toBe(true);
        expect(filled >= 0n).toBe(true);
        for (const q of slices) expect(q <= sliceCap(t, n)).toBe(true);
        expect(twapOutcome(t, filled)).toBe(filled === t ? 'FILLED' : filled === 0n ? 'NONE' : 'PARTIAL');
      }),
    );
  });

  it('plans one slice per interval, at least one', () => {
    expect(plannedSlices(10_000, 1_000)).toBe(10);
    expect(plannedSlices(500, 1_000)).toBe(1);
  });

  it('bounds each slice by the limit and the adverse move from the start, on the tick grid', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1_000n, max: 10n ** 9n }), fc.option(fc.bigInt({ min: 1n, max: 10n ** 9n }), { nil: null }), fc.integer({ min: 1, max: 5_000 }), fc.constantFrom(1n, 10n, 100n), (start, limit, bps, tick) => {
        const buy = slicePrice('BUY', start, limit, { bps }, tick);
        const sell = slicePrice('SELL', start, limit, { bps }, tick);
        expect(buy % tick).toBe(0n);
        expect(sell % tick).toBe(0n);
        expect(buy <= start + (start * BigInt(bps)) / 10_000n).toBe(true);
        if (limit !== null) expect(buy <= limit).toBe(true);
        expect(sell >= start - (start * BigInt(bps)) / 10_000n).toBe(true);
        if (limit !== null) expect(sell >= limit).toBe(true);
      }),
    );
  });
});
