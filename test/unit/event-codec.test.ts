import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_CODEC } from '../../src/infra/redis.ts';

/** Subscribers on another process must get back exactly what the engine owner published. */
describe('the pub/sub event codec', () => {
  const leaf = fc.oneof(
    fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
    fc.date({ noInvalidDate: true }),
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const payload = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__'), tie('value'), { maxKeys: 5 }),
  })).object;

  it('round-trips bigints, dates and nested structures', () => {
    fc.assert(
      fc.property(payload, (message) => {
        expect(EVENT_CODEC.parse(EVENT_CODEC.stringify(message))).toEqual(message);
      }),
      { numRuns: 300 },
    );
  });

  it('drops undefined fields, as JSON does', () => {
    expect(EVENT_CODEC.parse(EVENT_CODEC.stringify({ a: 1n, b: undefined }))).toEqual({ a: 1n });
  });
});
