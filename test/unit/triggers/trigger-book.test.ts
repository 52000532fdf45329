import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crosses, directionOf, TriggerBook, type ArmedTrigger, type Direction } from '../../../src/domain/triggers/index.ts';

const price = fc.bigInt({ min: 1n, max: 50n });
const op = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), direction: fc.constantFrom<Direction>('ABOVE', 'BELOW'), triggerPrice: price }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('trade' as const), price }),
);

describe('stop conditions', () => {
  it('a stop-loss fires on the move against the position, a take-profit on the move for it', () => {
    expect(directionOf('STOP_LOSS', 'SELL')).toBe('BELOW');
    expect(directionOf('STOP_LOSS', 'BUY')).toBe('ABOVE');
    expect(directionOf('TAKE_PROFIT', 'SELL')).toBe('ABOVE');
    expect(directionOf('TAKE_PROFIT', 'BUY')).toBe('BELOW');
    fc.assert(
      fc.property(price, price, (trigger, p) => {
        expect(crosses('ABOVE', trigger, p)).toBe(p >= trigger);
        expect(crosses('BELOW', trigger, p)).toBe(p <= trigger);
      }),
    );
  });
});

describe('the trigger book', () => {
  it('fires exactly what a scan of every armed trigger after every trade fires, in the same order, each once', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const book = new TriggerBook();
        // The naive reference: every armed trigger in arrival order, scanned after each trade.
        let naive: ArmedTrigger[] = [];
        let nextId = 1n;
        const fired = new Set<bigint>();
        for (const o of ops) {
          if (o.kind === 'add') {
            const t = { id: nextId++, direction: o.direction, triggerPrice: o.triggerPrice };
            book.add(t);
            naive.push(t);
          } else if (o.kind === 'remove') {
            if (naive.length === 0) continue;
            const t = naive[o.pick % naive.length] as ArmedTrigger;
            expect(book.remove(t)).toBe(true);
            expect(book.remove(t)).toBe(false);
            naive = naive.filter((x) => x !== t);
          } else {
            const got = book.takeCrossed(o.price);
            const hit = naive.filter((t) => crosses(t.direction, t.triggerPrice, o.price));
            // Firing order: ABOVE by price ascending, then BELOW by price descending; ties by arrival.
            const order = (d: Direction, sign: bigint) =>
              hit.filter((t) => t.direction === d).sort((a, b) => Number((a.triggerPrice - b.triggerPrice) * sign) || Number(a.id - b.id));
            expect(got.map((t) => t.id)).toEqual([...order('ABOVE', 1n), ...order('BELOW', -1n)].map((t) => t.id));
            for (const t of got) {
              expect(fired.has(t.id)).toBe(false);
              fired.add(t.id);
            }
            naive = naive.filter((t) => !hit.includes(t));
          }
          expect(book.size).toBe(naive.length);
        }
      }),
      { numRuns: 400 },
    );
  });
});
