/**
 * Quote notional of a fill, exact integer semantics.
 *
 * price is Q9 (quote units per base unit x 1e9), qty is base-scaled (x 10^baseScale), a
 * quote amount is quote-scaled (x 10^quoteScale), so the exact notional in quote-scaled
 * units is
 *
 *     price * qty * 10^quoteScale / 10^(9 + baseScale)
 *   = price * qty * mul / div     with e = 9 + baseScale - quoteScale,
 *                                  mul = 10^max(0, -e), div = 10^max(0, e)
 *
 * and `quoteNotional` rounds it UP (ceiling), per fill. The BUY cap `maxQuoteNotional`
 * bounds the sum of these per-fill ceilings, which is at least the exact total and at
 * least the ceiling of the total, so a service that debits either never exceeds the cap.
 */
export interface NotionalScale {
  readonly mul: bigint;
  readonly div: bigint;
}

export function notionalScale(baseScale: number, quoteScale: number): NotionalScale {
  if (!Number.isSafeInteger(baseScale) || !Number.isSafeInteger(quoteScale) || baseScale < 0 || quoteScale < 0) {
    throw new RangeError(`invalid scales base=${baseScale} quote=${quoteScale}`);
  }
  const e = 9 + baseScale - quoteScale;
  return e >= 0 ? { mul: 1n, div: 10n ** BigInt(e) } : { mul: 10n ** BigInt(-e), div: 1n };
}

/** ceil(price * qty * mul / div), for price, qty >= 0. */
export function quoteNotional(price: bigint, qty: bigint, scale: NotionalScale): bigint {
  const n = price * qty * scale.mul;
  const d = scale.div;
  return d === 1n ? n : (n + d - 1n) / d;
}

/**
 * The largest qty (a multiple of `step`) whose notional at `price` fits in `budget`:
 * ceil(price*q*mul/div) <= budget  <=>  price*q*mul <= budget*div  (budget is an integer)
 *                                  <=>  q <= floor(budget*div / (price*mul)).
 */
export function maxQtyForBudget(price: bigint, budget: bigint, step: bigint, scale: NotionalScale): bigint {
  if (budget <= 0n) return 0n;
  const q = (budget * scale.div) / (price * scale.mul);
  return step === 1n ? q : q - (q % step);
}
