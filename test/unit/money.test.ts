import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { feeOf, formatScaled, parseScaled } from '../../src/domain/money.ts';

describe('decimal strings', () => {
  it('round-trip every scaled integer exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }), (v, scale) => {
        expect(parseScaled(formatScaled(v, scale), scale, 'x', { max: 10n ** 30n })).toBe(v);
      }),
    );
  });

  it('refuse what a bigint column cannot hold unless a larger bound is given', () => {
    expect(parseScaled('9223372036854775807', 0, 'x')).toBe(2n ** 63n - 1n);
    expect(() => parseScaled('9223372036854775808', 0, 'x')).toThrow(/too large/);
    expect(() => parseScaled('9223372036.854775808', 9, 'x')).toThrow(/too large/);
    expect(parseScaled('9223372036854775808', 0, 'x', { max: 10n ** 36n })).toBe(2n ** 63n);
  });

  it('parse human-readable values', () => {
    expect(parseScaled('30000.5', 9, 'price')).toBe(30_000_500_000_000n);
    expect(parseScaled('0.25', 6, 'qty')).toBe(250_000n);
    expect(parseScaled('1.10', 1, 'qty')).toBe(11n);
    expect(formatScaled(30_000_500_000_000n, 9)).toBe('30000.5');
    expect(formatScaled(0n, 9)).toBe('0');
  });

  it.each([
    ['1.0000001', 6, 'scale'],
    ['-1', 6, 'decimal'],
    ['1e3', 6, 'decimal'],
    ['01', 6, 'decimal'],
    ['.5', 6, 'decimal'],
    ['0', 6, 'positive'],
  ])('refuses %j at scale %i (%s), never rounding', (text, scale, ruleId) => {
    try {
      parseScaled(text, scale, 'order.baseQty');
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).violations[0]).toMatchObject({ fieldPath: 'order.baseQty', ruleId });
    }
  });
});

describe('fees', () => {
  it('round charged fees up and rebates down', () => {
    expect(feeOf(1_000_001n, 1000)).toEqual({ fee: 1001n, rebate: false });
    expect(feeOf(1_000_999n, -50)).toEqual({ fee: 50n, rebate: true });
    expect(feeOf(0n, 1000)).toEqual({ fee: 0n, rebate: false });
  });
});
