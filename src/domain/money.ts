import { invalidArgument } from './errors.ts';

/**
 * Decimal strings at the edges, scaled integers everywhere else. Parsing is exact: a
 * value with more decimals than the scale allows is refused, never rounded.
 */
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export const E18 = 18;

/** Prices and pair quantities are stored as PostgreSQL bigint. */
export const INT64_MAX = 2n ** 63n - 1n;
/**
 * The largest single ledger amount accepted, in E18 units (10^18 whole units of any asset):
 * far above any real transfer, and sums of such amounts stay well inside numeric(78, 0).
 */
export const MAX_LEDGER_AMOUNT_E18 = 10n ** 36n;

/** Values above `max` (default: what a bigint column holds) are refused, so bad input never reaches the database. */
export function parseScaled(text: string, scale: number, fieldPath: string, options: { allowZero?: boolean; max?: bigint } = {}): bigint {
  if (typeof text !== 'string' || !DECIMAL.test(text) || text.length > 60) {
    throw invalidArgument(fieldPath, 'must be a non-negative decimal string such as "30000.5"', 'decimal');
  }
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  const digits = fraction.replace(/0+$/, '');
  if (digits.length > scale) {
    throw invalidArgument(fieldPath, `has more than ${scale} decimal places`, 'scale');
  }
  const value = BigInt(whole) * 10n ** BigInt(scale) + (digits === '' ? 0n : BigInt(digits.padEnd(scale, '0')));
  if (value === 0n && !options.allowZero) throw invalidArgument(fieldPath, 'must be greater than zero', 'positive');
  const max = options.max ?? INT64_MAX;
  if (value > max) throw invalidArgument(fieldPath, `is too large: at most ${formatScaled(max, scale)}`, 'range');
  return value;
}

/** "30000.5" for 30000500000000n at scale 9: no trailing zeros, no exponent. */
export function formatScaled(value: bigint, scale: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const unit = 10n ** BigInt(scale);
  const whole = abs / unit;
  const fraction = (abs % unit).toString().padStart(scale, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A pair-scaled quantity as E18 ledger units. */
export function toE18(value: bigint, scale: number): bigint {
  return value * 10n ** BigInt(E18 - scale);
}

/** Fee of `ppm` parts per million on `amount`: charged fees round up, rebates round down. */
export function feeOf(amountE18: bigint, ppm: number): { fee: bigint; rebate: boolean } {
  if (ppm >= 0) return { fee: (amountE18 * BigInt(ppm) + 999_999n) / 1_000_000n, rebate: false };
  return { fee: (amountE18 * BigInt(-ppm)) / 1_000_000n, rebate: true };
}

/** Prisma Decimal (integer-valued NUMERIC) to bigint, without floats or exponents. */
export function decimalToBigInt(value: { toFixed(digits?: number): string } | string | number | bigint): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(value);
  return BigInt(typeof value === 'string' ? value : value.toFixed(0));
}
