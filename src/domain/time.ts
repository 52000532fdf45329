/**
 * RFC 3339 times exact to the nanosecond (spec 2.7 `expireAt`), as epoch-nanosecond
 * bigints. `Date` keeps milliseconds only, so it is used here for the calendar, never for
 * the fraction.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The spec's range of epoch nanoseconds: 1677-09-21T00:12:43.145224193Z to 2262-04-11T23:47:16.854775807Z. */
export const MIN_EPOCH_NS = -(2n ** 63n) + 1n;
export const MAX_EPOCH_NS = 2n ** 63n - 1n;

/** Epoch nanoseconds of an RFC 3339 date-time with an offset, or null when it is not one (or out of range). */
export function parseRfc3339Ns(text: string): bigint | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls invalid days over (Feb 30 becomes Mar 2): refuse them.
  if (new Date(ms).getUTCDate() !== day) return null;
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = BigInt((m[7] ?? '').padEnd(9, '0'));
  const ns = (BigInt(ms) - BigInt(offsetMinutes) * 60_000n) * 1_000_000n + fraction;
  return ns < MIN_EPOCH_NS || ns > MAX_EPOCH_NS ? null : ns;
}

/** UTC RFC 3339 of epoch nanoseconds, with as many fractional digits as it needs (none for whole seconds). */
export function formatRfc3339Ns(ns: bigint): string {
  const seconds = ns >= 0n ? ns / 1_000_000_000n : -((-ns + 999_999_999n) / 1_000_000_000n);
  const fraction = ns - seconds * 1_000_000_000n;
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  const digits = fraction === 0n ? '' : `.${fraction.toString().padStart(9, '0').replace(/0+$/, '')}`;
  return `${whole}${digits}Z`;
}
