import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bytes, int32, int64, queryBool, queryInt, queryList, rfc3339, toBase64, toInt64, uint64 } from '../../src/transport/rest/codec.ts';
import { violationsOf } from '../../src/transport/problem.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

describe('int64 codec', () => {
  it('round-trips every int64 through its decimal string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (n) => {
        expect(int64().parse(toInt64(n))).toBe(n);
      }),
    );
  });

  it('refuses values one past either end of the range', () => {
    expect(int64().safeParse((INT64_MAX + 1n).toString()).success).toBe(false);
    expect(int64().safeParse((INT64_MIN - 1n).toString()).success).toBe(false);
    expect(uint64().safeParse('-1').success).toBe(false);
    expect(uint64().parse((2n ** 64n - 1n).toString())).toBe(2n ** 64n - 1n);
  });

  it('refuses JSON numbers, which would already have lost precision', () => {
    expect(int64().safeParse(9007199254740993).success).toBe(false);
  });

  it.each(['', '01', '+1', '1.0', '1e3', ' 1', '0x10', '-0'])('refuses %j', (s) => {
    expect(int64().safeParse(s).success).toBe(false);
  });

  it('names the rule in the violation', () => {
    const schema = z.object({ order: z.object({ qty: int64() }) });
    const r = schema.safeParse({ order: { qty: '99999999999999999999' } });
    expect(r.success).toBe(false);
    if (!r.success) {
      expect(violationsOf(r.error)).toEqual([
        { fieldPath: 'order.qty', message: expect.stringContaining('between'), ruleId: 'int64-range' },
      ]);
    }
  });
});

describe('int32 codec', () => {
  it('accepts the int32 range as numbers and nothing outside', () => {
    expect(int32().parse(2 ** 31 - 1)).toBe(2 ** 31 - 1);
    expect(int32().safeParse(2 ** 31).success).toBe(false);
    expect(int32().safeParse(1.5).success).toBe(false);
    expect(int32().safeParse('1').success).toBe(false);
  });
});

describe('bytes codec', () => {
  it('round-trips arbitrary bytes through standard base64', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        expect(Buffer.from(bytes().parse(toBase64(b)))).toEqual(Buffer.from(b));
      }),
    );
  });

  it('accepts the URL-safe alphabet too', () => {
    const b = Uint8Array.from([251, 255, 190]);
    expect(Buffer.from(bytes().parse(Buffer.from(b).toString('base64url')))).toEqual(Buffer.from(b));
  });

  it('enforces an exact length with its own rule id', () => {
    const r = z.object({ publicKeyEd25519: bytes(32) }).safeParse({ publicKeyEd25519: toBase64(new Uint8Array(31)) });
    expect(r.success).toBe(false);
    if (!r.success) expect(violationsOf(r.error)[0]).toMatchObject({ fieldPath: 'publicKeyEd25519', ruleId: 'bytes-length' });
  });

  it('refuses text that is not base64', () => {
    expect(bytes().safeParse('not base64!').success).toBe(false);
    expect(bytes().safeParse('abcde').success).toBe(false);
  });
});

describe('query codecs', () => {
  it('parses booleans strictly', () => {
    expect(queryBool().parse('true')).toBe(true);
    expect(queryBool().parse('false')).toBe(false);
    expect(queryBool().safeParse('1').success).toBe(false);
  });

  it('parses bounded integers', () => {
    expect(queryInt(1, 500).parse('500')).toBe(500);
    expect(queryInt(1, 500).safeParse('501').success).toBe(false);
    expect(queryInt(1, 500).safeParse('0').success).toBe(false);
    expect(queryInt(1, 500).safeParse('-1').success).toBe(false);
  });

  it('merges repeated and comma-separated values', () => {
    expect(queryList(z.string()).parse(['BTC-USDC,ETH-USDC', 'SOL-USDC', 'BTC-USDC'])).toEqual([
      'BTC-USDC',
      'ETH-USDC',
      'SOL-USDC',
    ]);
  });

  it('reads RFC 3339 times with an offset only', () => {
    expect(rfc3339().parse('2026-01-02T03:04:05.123+01:00').toISOString()).toBe('2026-01-02T02:04:05.123Z');
    expect(rfc3339().safeParse('2026-01-02 03:04:05').success).toBe(false);
  });
});
