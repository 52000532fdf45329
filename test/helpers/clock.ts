import { systemClock, type Clock } from '../../src/infra/clock.ts';

/** The server's clock, moved forward by the test so expiries and retention come when the test says. */
export function shiftableClock(): Clock & { skip(ms: number): void } {
  const base = systemClock();
  let offsetMs = 0;
  return {
    now: () => new Date(base.now().getTime() + offsetMs),
    nowNs: () => base.nowNs() + BigInt(offsetMs) * 1_000_000n,
    skip(ms) {
      offsetMs += ms;
    },
  };
}
