import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRfc3339Ns, MAX_EPOCH_NS, MIN_EPOCH_NS, parseRfc3339Ns } from '../../src/domain/time.ts';

describe('RFC 3339 at nanosecond precision', () => {
  it('round-trips every epoch nanosecond of the signed 64-bit range', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_EPOCH_NS, max: MAX_EPOCH_NS }), (ns) => {
        expect(parseRfc3339Ns(formatRfc3339Ns(ns))).toBe(ns);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps every digit of the fraction and applies offsets', () => {
    expect(parseRfc3339Ns('2026-11-23T12:00:00.123456789Z')).toBe(1_795_435_200_123_456_789n);
    expect(parseRfc3339Ns('2026-11-23T13:30:00.123456789+01:30')).toBe(1_795_435_200_123_456_789n);
    expect(parseRfc3339Ns('2026-11-23T12:00:00.1Z')).toBe(1_795_435_200_100_000_000n);
    expect(formatRfc3339Ns(1_795_435_200_123_456_789n)).toBe('2026-11-23T12:00:00.123456789Z');
    expect(formatRfc3339Ns(1_795_435_200_000_000_000n)).toBe('2026-11-23T12:00:00Z');
    expect(formatRfc3339Ns(1_795_435_200_500_000_000n)).toBe('2026-11-23T12:00:00.5Z');
    expect(formatRfc3339Ns(-1n)).toBe('1969-12-31T23:59:59.999999999Z');
  });

  it('gives the spec’s bounds exactly, and nothing beyond them', () => {
    expect(formatRfc3339Ns(MIN_EPOCH_NS)).toBe('1677-09-21T00:12:43.145224193Z');
    expect(formatRfc3339Ns(MAX_EPOCH_NS)).toBe('2262-04-11T23:47:16.854775807Z');
    expect(parseRfc3339Ns('2262-04-11T23:47:16.854775808Z')).toBeNull();
    expect(parseRfc3339Ns('1677-09-21T00:12:43.145224192Z')).toBeNull();
  });

  it.each(['2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:60Z', '2026-01-01T00:00:00', '2026-01-01T00:00:00.1234567891Z', '2026-01-01 00:00:00Z', '2026-01-01T00:00:00+24:00', ''])(
    'refuses %j',
    (text) => {
      expect(parseRfc3339Ns(text)).toBeNull();
    },
  );
});
