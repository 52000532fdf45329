import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ladderLevels, type Distribution } from '../../../src/domain/triggers/index.ts';

describe('ladder levels', () => {
  it('sum exactly to the quantity, sit on distinct ticks within the range, and follow the distribution', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 1n, max: 10_000n }),
        fc.bigInt({ min: 0n, max: 100_000n }),
        fc.constantFrom(1n, 10n, 1_000n),
        fc.constantFrom<Distribution>('FLAT', 'ASCENDING', 'DESCENDING'),
        (levels, qty, minTicks, spanTicks, tick, distribution) => {
          const min = minTicks * tick;
          const max = min + (spanTicks + BigInt(levels)) * tick;
          const out = ladderLevels(levels, min, max, tick, qty, distribution);
          expect(out).toHaveLength(levels);
          expect(out.reduce((a, l) => a + l.qty, 0n)).toBe(qty);
          for (const l of out) {
            expect(l.price % tick).toBe(0n);
            expect(l.price >= min && l.price <= max).toBe(true);
          }
          for (let i = 1; i < out.length; i++) {
            expect((out[i] as { price: bigint }).price > (out[i - 1] as { price: bigint }).price).toBe(true);
            const [a, b] = [(out[i - 1] as { qty: bigint }).qty, (out[i] as { qty: bigint }).qty];
            // Within a lot of the weights' order (rounding moves a level by at most one lot).
            if (distribution === 'ASCENDING') expect(b + 1n >= a).toBe(true);
            if (distribution === 'DESCENDING') expect(a + 1n >= b).toBe(true);
            if (distribution === 'FLAT') expect(a - b <= 1n && b - a <= 1n).toBe(true);
          }
        },
      ),
    );
  });

  it('refuses a range with fewer ticks than levels', () => {
    expect(() => ladderLevels(5, 100n, 102n, 1n, 10n, 'FLAT')).toThrow(RangeError);
    expect(ladderLevels(3, 100n, 102n, 1n, 10n, 'FLAT').map((l) => [l.price, l.qty])).toEqual([[100n, 4n], [101n, 3n], [102n, 3n]]);
  });
});
