/** Fee rates in parts per million per VIP tier (negative: a rebate), as a market configures them. */
export interface FeeSchedule {
  readonly makerFeePpm: readonly number[];
  readonly takerFeePpm: readonly number[];
}

/**
 * Extra (E18) every fee-in-quote BUY reservation carries: each fill's fee rounds up on its
 * own, so n fills may charge up to n - 1 units more than the fee on their sum; this covers
 * a million fills. Markets with a quote scale of 12 or less never round (see fill.ts).
 */
export const FEE_SLACK_E18 = 1_000_000n;

/** The rate an order of `vipTier` pays as maker or taker. */
export function feePpm(schedule: FeeSchedule, isMaker: boolean, vipTier = 0): number {
  const ppm = (isMaker ? schedule.makerFeePpm : schedule.takerFeePpm)[vipTier];
  if (ppm === undefined) throw new RangeError(`the fee schedule has no rate for VIP tier ${vipTier}`);
  return ppm;
}

/**
 * The rate reservations cover: tier 0's higher rate, as no tier pays more than tier 0 (a
 * schedule where one does lets that tier's buyers overdraw their hold), and never below
 * zero, since a rebate is paid by the fee account, not out of the order's hold.
 */
export function maxFeePpm(schedule: FeeSchedule): number {
  return Math.max(feePpm(schedule, false), feePpm(schedule, true), 0);
}
