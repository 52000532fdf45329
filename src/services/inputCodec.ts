import { parseRfc3339Ns } from '../domain/time.ts';
import { z } from 'zod';

/**
 * The request side of the JSON codec of spec 2.1, as zod schemas: each operation's
 * `<op>.schema.ts` builds its input from these, and both transports parse with it.
 * 64-bit integers travel as decimal strings (a JSON number would silently lose precision
 * above 2^53, so numbers are refused), bytes as base64, times by suffix.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

const DECIMAL_INTEGER = /^(0|-?[1-9][0-9]*)$/;

function integerString(min: bigint, max: bigint, ruleId: string) {
  return z
    .string({ error: 'must be a decimal integer string' })
    .regex(DECIMAL_INTEGER, { error: 'must be a decimal integer string' })
    .transform((s, ctx) => {
      const v = BigInt(s);
      if (v < min || v > max) {
        ctx.addIssue({ code: 'custom', message: `must be between ${min} and ${max}`, params: { ruleId } });
        return z.NEVER;
      }
      return v;
    });
}

/** `int64`/`fixed64` as a JSON string. */
export const int64 = () => integerString(INT64_MIN, INT64_MAX, 'int64-range');
/** A non-negative `int64` (ids, nanosecond times) as a decimal string. */
export const nonNegativeInt64 = () => integerString(0n, INT64_MAX, 'int64-range');
/** `uint64` as a JSON string. */
export const uint64 = () => integerString(0n, UINT64_MAX, 'uint64-range');
/** `int32` as a JSON number. */
export const int32 = () =>
  z
    .number({ error: 'must be a number' })
    .int({ error: 'must be an integer' })
    .min(INT32_MIN, { error: `must be at least ${INT32_MIN}` })
    .max(INT32_MAX, { error: `must be at most ${INT32_MAX}` });

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** `bytes`: standard base64 (the URL-safe alphabet is accepted too, as proto3 JSON does). */
export const bytes = (exactLength?: number) =>
  z.string({ error: 'must be a base64 string' }).transform((s, ctx) => {
    let buf: Buffer;
    if (BASE64.test(s)) buf = Buffer.from(s, 'base64');
    else if (BASE64URL.test(s) && s.length % 4 !== 1) buf = Buffer.from(s, 'base64url');
    else {
      ctx.addIssue({ code: 'custom', message: 'must be base64', params: { ruleId: 'base64' } });
      return z.NEVER;
    }
    if (exactLength !== undefined && buf.length !== exactLength) {
      ctx.addIssue({
        code: 'custom',
        message: `must be exactly ${exactLength} bytes, got ${buf.length}`,
        params: { ruleId: 'bytes-length' },
      });
      return z.NEVER;
    }
    return new Uint8Array(buf);
  });

/** RFC 3339 time with an explicit offset, kept as text for exact (nanosecond) parsing by the service. */
export const rfc3339Ns = () =>
  z
    .string()
    .max(64)
    .refine((s) => parseRfc3339Ns(s) !== null, { error: 'must be an RFC 3339 date-time with an offset (up to nanoseconds)', params: { ruleId: 'rfc3339' } });

/** RFC 3339 time with an explicit offset, normalised to a Date. */
export const rfc3339 = () =>
  z.iso
    .datetime({ offset: true, error: 'must be an RFC 3339 date-time' })
    .transform((s) => new Date(s));

// Query strings carry everything as text.
export const queryBool = () =>
  z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true');

export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, { error: 'must be an integer' })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` }));

/** A repeated or comma-separated query parameter, as a list of unique values. */
export const queryList = <T extends z.ZodType<string, string>>(item: T) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) => [...new Set((Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).filter((s) => s !== ''))])
    .pipe(z.array(item));

/** Request fragments several operations share. */
export const pageQuery = (maxLimit: number) => ({
  limit: queryInt(1, maxLimit).optional(),
  pageToken: z.string().max(2048).optional(),
});

export const subaccountIdField = z.string().max(64).optional();
