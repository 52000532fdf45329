import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INITIAL_TRAILING, onTrailingPrice, TRAILING_DISTANCE_LIMITS, trailingDistanceOf, worstThreshold, type TrailingParams, type TrailingState } from '../../../src/domain/triggers/index.ts';

const price = fc.bigInt({ min: 1_000n, max: 100_000n });
const params: fc.Arbitrary<TrailingParams> = fc.record({
  side: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL'),
  activationPrice: fc.option(price, { nil: null }),
  distance: fc.oneof(fc.record({ ticks: fc.bigInt({ min: 1n, max: 50n }), tickSize: fc.constant(10n) }), fc.record({ bps: fc.integer({ min: 1, max: 2_000 }) })),
});

/** Runs prices through the stop until it fires: every state, and the price that fired it. */
function run(p: TrailingParams, prices: bigint[]) {
  let state: TrailingState = INITIAL_TRAILING;
  const states: TrailingState[] = [];
  for (const px of prices) {
    const r = onTrailingPrice(p, state, px);
    state = r.state;
    states.push(state);
    if (r.fire) return { states, firedAt: px };
  }
  return { states, firedAt: null };
}

describe('trailing stop', () => {
  it('never moves its threshold against the position, and fires only at or through it', () => {
    fc.assert(
      fc.property(params, fc.array(price, { maxLength: 60 }), (p, prices) => {
        const { states, firedAt } = run(p, prices);
        const thresholds = states.map((s) => s.threshold).filter((t): t is bigint => t !== null);
        for (let i = 1; i < thresholds.length; i++) {
          const [a, b] = [thresholds[i - 1] as bigint, thresholds[i] as bigint];
          if (p.side === 'SELL') expect(b >= a).toBe(true);
          else expect(b <= a).toBe(true);
        }
        if (firedAt !== null) {
          const last = states[states.length - 1] as TrailingState;
          expect(last.active).toBe(true);
          if (p.side === 'SELL') expect(firedAt <= (last.threshold as bigint)).toBe(true);
          else expect(firedAt >= (last.threshold as bigint)).toBe(true);
        }
      }),
    );
  });

  it('tracks the peak (SELL) or trough (BUY) since activation, and fires on the retrace by the distance', () => {
    const sell: TrailingParams = { side: 'SELL', activationPrice: 31_000n, distance: { ticks: 50n, tickSize: 10n } };
    // Not active until 31000 prints; then the peak 32000 sets the threshold at 31500.
    expect(run(sell, [30_000n, 29_000n]).firedAt).toBeNull();
    const r = run(sell, [30_000n, 31_000n, 32_000n, 31_800n, 31_500n, 31_000n]);
    expect(r.firedAt).toBe(31_500n);
    expect(r.states.at(-1)).toEqual({ active: true, extreme: 32_000n, threshold: 31_500n });
    const buy: TrailingParams = { side: 'BUY', activationPrice: null, distance: { bps: 100 } };
    // Trough 20000: threshold 20200.
    expect(run(buy, [21_000n, 20_000n, 20_100n, 20_200n]).firedAt).toBe(20_200n);
  });

  it("a BUY stop's threshold never rises above the one its funds are held for", () => {
    fc.assert(
      fc.property(params.filter((p) => p.side === 'BUY'), price, fc.array(price, { maxLength: 60 }), (p, reference, prices) => {
        // Until active, a stop without an activation price starts from the reference (the last price).
        const worst = worstThreshold(p, reference);
        const { states } = run(p, [reference, ...prices]);
        for (const s of states) if (s.threshold !== null) expect(s.threshold <= worst).toBe(true);
      }),
    );
  });
});

describe('a trailing threshold stays what a price column holds', () => {
  const INT64_MAX = 2n ** 63n - 1n;
  it('is never below zero nor past INT64_MAX, whatever the distance and the prices', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL'),
        fc.oneof(
          fc.record({ ticks: fc.bigInt({ min: 1n, max: TRAILING_DISTANCE_LIMITS.maxTicks }), tickSize: fc.bigInt({ min: 1n, max: 10n ** 12n }) }),
          fc.record({ bps: fc.integer({ min: 1, max: TRAILING_DISTANCE_LIMITS.maxBps }) }),
        ),
        fc.array(fc.bigInt({ min: 1n, max: INT64_MAX }), { minLength: 1, maxLength: 8 }),
        (side, distance, prices) => {
          const params: TrailingParams = { side, activationPrice: null, distance };
          let state = INITIAL_TRAILING;
          for (const p of prices) {
            state = onTrailingPrice(params, state, p).state;
            const t = state.threshold as bigint;
            expect(t >= 0n && t <= INT64_MAX).toBe(true);
          }
          const worst = worstThreshold(params, prices[0] as bigint);
          expect(worst >= 0n && worst <= INT64_MAX).toBe(true);
        },
      ),
    );
  });

  it('a SELL stop whose distance exceeds the price never fires; the shared bounds refuse what lies past them', () => {
    const params: TrailingParams = { side: 'SELL', activationPrice: null, distance: { ticks: 999_999_999n, tickSize: 10_000_000n } };
    const armed = onTrailingPrice(params, INITIAL_TRAILING, 30_000_000_000_000n).state;
    expect(armed.threshold).toBe(0n);
    expect(onTrailingPrice(params, armed, 1n).fire).toBe(false);
    expect(() => trailingDistanceOf('f', { trailingDistanceTicks: '1000000000' })).toThrow(/1 to 999999999/);
    expect(() => trailingDistanceOf('f', { trailingDistanceTicks: '1000000000000' })).toThrow(/trailingDistanceTicks/);
    expect(() => trailingDistanceOf('f', { trailingDistanceBps: 10_000 })).toThrow(/1 to 9999/);
    expect(() => trailingDistanceOf('f', { trailingDistanceBps: 2_147_483_647 })).toThrow(/trailingDistanceBps/);
    expect(trailingDistanceOf('f', { trailingDistanceBps: 9_999 })).toEqual({ ticks: null, bps: 9_999 });
  });
});
