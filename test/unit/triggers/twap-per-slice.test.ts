import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slicePrice } from '../../../src/domain/triggers/index.ts';

/**
 * A TWAP's adverse move is bounded per slice (issue 25, the spec's "max adverse movement per
 * slice bps and ticks"): each slice's price bound is measured from the reference price when
 * that slice starts.
 */

const tick = fc.constantFrom(1n, 10n, 1_000_000n, 10_000_000n);
const price = fc.bigInt({ min: 1_000_000n, max: 10n ** 15n });
const adverse = fc.oneof(fc.integer({ min: 1, max: 9_999 }).map((bps) => ({ bps })), fc.bigInt({ min: 1n, max: 1_000n }).map((ticks) => ({ ticks })));
const deltaOf = (reference: bigint, a: { bps: number } | { ticks: bigint }, tickSize: bigint) => ('bps' in a ? (reference * BigInt(a.bps)) / 10_000n : a.ticks * tickSize);

describe('slicePrice per slice', () => {
  it('a BUY slice never pays more than its reference plus the allowance, nor its limit; on the grid, within a tick of the tighter bound', () => {
    fc.assert(
      fc.property(price, fc.option(price, { nil: null }), adverse, tick, (reference, limit, a, tickSize) => {
        const p = slicePrice('BUY', reference, limit, a, tickSize);
        const bound = reference + deltaOf(reference, a, tickSize);
        const tight = limit !== null && limit < bound ? limit : bound;
        expect(p % tickSize).toBe(0n);
        expect(p <= tight).toBe(true);
        expect(p > tight - tickSize).toBe(true);
      }),
    );
  });

  it('a SELL slice never sells below its reference minus the allowance, nor its limit; on the grid, positive', () => {
    fc.assert(
      fc.property(price, fc.option(price, { nil: null }), adverse, tick, (reference, limit, a, tickSize) => {
        const p = slicePrice('SELL', reference, limit, a, tickSize);
        const bound = reference - deltaOf(reference, a, tickSize);
        const tight = limit !== null && limit > bound ? limit : bound;
        expect(p % tickSize).toBe(0n);
        expect(p > 0n).toBe(true);
        if (tight > 0n) {
          expect(p >= tight).toBe(true);
          expect(p < tight + tickSize).toBe(true);
        }
      }),
    );
  });

  it('follows the market between slices: the bound moves with each slice’s reference, not the price at acceptance', () => {
    fc.assert(
      fc.property(price, price, adverse, tick, (first, later, a, tickSize) => {
        for (const side of ['BUY', 'SELL'] as const) {
          // Monotone in the reference: a higher price at the slice's start never lowers its bound.
          const [lo, hi] = first < later ? [first, later] : [later, first];
          expect(slicePrice(side, lo, null, a, tickSize) <= slicePrice(side, hi, null, a, tickSize)).toBe(true);
        }
        // After a rise past the allowance, a BUY slice may pay above the first slice's bound (a fall: a SELL below it).
        const fall = first - deltaOf(first, a, tickSize) - 2n * tickSize;
        if (fall > 2n * tickSize && slicePrice('SELL', first, null, a, tickSize) > tickSize) expect(slicePrice('SELL', fall, null, a, tickSize) < slicePrice('SELL', first, null, a, tickSize)).toBe(true);
        const rise = first + deltaOf(first, a, tickSize) + 2n * tickSize;
        expect(slicePrice('BUY', rise, null, a, tickSize) > slicePrice('BUY', first, null, a, tickSize)).toBe(true);
      }),
    );
  });
});
