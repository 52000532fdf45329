import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDrawingStates, mergeDrawingStates, resolveDrawingSync, type DrawingState } from '../../src/domain/chartMerge.ts';

// Small domains so ties on clientUpdatedAtMs (and on whole states) happen often.
const state: fc.Arbitrary<DrawingState> = fc.record({
  type: fc.integer({ min: 0, max: 2 }),
  version: fc.integer({ min: 1, max: 2 }),
  payload: fc.uint8Array({ maxLength: 3, max: 2 }),
  bboxTimeMinMs: fc.bigInt({ min: 0n, max: 2n }),
  bboxTimeMaxMs: fc.bigInt({ min: 0n, max: 2n }),
  bboxPriceMin: fc.constantFrom(0, 0.5, 1e9),
  bboxPriceMax: fc.constantFrom(0, 0.25, 7),
  clientUpdatedAtMs: fc.bigInt({ min: 1n, max: 3n }),
  deleted: fc.boolean(),
});

const mergeAll = (states: DrawingState[]) => states.reduce((a, b) => mergeDrawingStates(a, b));

describe('last-write-wins merge of drawings', () => {
  it('is order-independent: any permutation of the same edits merges to the same state', () => {
    fc.assert(
      fc.property(fc.array(state, { minLength: 1, maxLength: 8 }), fc.infiniteStream(fc.nat()), (states, picks) => {
        const shuffled = [...states];
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = (picks.next().value as number) % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j] as DrawingState, shuffled[i] as DrawingState];
        }
        expect(mergeAll(shuffled)).toEqual(mergeAll(states));
      }),
    );
  });

  it('is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(state, state, state, (a, b, c) => {
        expect(mergeDrawingStates(a, b)).toEqual(mergeDrawingStates(b, a));
        expect(mergeDrawingStates(mergeDrawingStates(a, b), c)).toEqual(mergeDrawingStates(a, mergeDrawingStates(b, c)));
        expect(mergeDrawingStates(a, a)).toEqual(a);
        expect(mergeDrawingStates(mergeDrawingStates(a, b), b)).toEqual(mergeDrawingStates(a, b));
      }),
    );
  });

  it('keeps the later clientUpdatedAtMs whatever the content', () => {
    fc.assert(
      fc.property(state, state, (a, b) => {
        fc.pre(a.clientUpdatedAtMs !== b.clientUpdatedAtMs);
        const later = a.clientUpdatedAtMs > b.clientUpdatedAtMs ? a : b;
        expect(mergeDrawingStates(a, b)).toBe(later);
      }),
    );
  });

  it('orders states totally: 0 only for equal states', () => {
    fc.assert(
      fc.property(state, state, (a, b) => {
        const c = compareDrawingStates(a, b);
        expect(Math.sign(compareDrawingStates(b, a))).toBe(-Math.sign(c));
        if (c === 0) expect(a).toEqual(b);
      }),
    );
  });

  it('a sync replayed against its own result changes nothing (idempotent), and the server reports who won', () => {
    fc.assert(
      fc.property(fc.option(state, { nil: undefined }), fc.array(state, { minLength: 1, maxLength: 5 }), (server, incoming) => {
        const first = resolveDrawingSync(server, incoming);
        const replay = resolveDrawingSync(first.state, incoming);
        expect(replay).toEqual({ winner: 'SERVER', state: first.state });
        const best = mergeAll(incoming);
        if (server === undefined || compareDrawingStates(best, server) > 0) expect(first).toEqual({ winner: 'CLIENT', state: best });
        else expect(first).toEqual({ winner: 'SERVER', state: server });
      }),
    );
  });

  it('a tie on clientUpdatedAtMs: the deletion wins over an edit', () => {
    const edit: DrawingState = {
      type: 1, version: 1, payload: Uint8Array.of(9, 9), bboxTimeMinMs: 0n, bboxTimeMaxMs: 0n,
      bboxPriceMin: 0, bboxPriceMax: 0, clientUpdatedAtMs: 5n, deleted: false,
    };
    const del = { ...edit, payload: Uint8Array.of(1), deleted: true };
    expect(mergeDrawingStates(edit, del)).toBe(del);
    expect(mergeDrawingStates(del, edit)).toBe(del);
  });
});
