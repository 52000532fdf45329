/** Time as a dependency: services read it here, the domain receives it as a value. */
export interface Clock {
  now(): Date;
  /** Epoch nanoseconds; monotonic within a process so event times never go backwards. */
  nowNs(): bigint;
}

export function systemClock(): Clock {
  const originNs = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
  let last = 0n;
  return {
    now: () => new Date(),
    nowNs() {
      const t = originNs + process.hrtime.bigint();
      last = t > last ? t : last + 1n;
      return last;
    },
  };
}
