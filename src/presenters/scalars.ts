import { z } from 'zod';
import { formatScaled } from '../domain/money.ts';

/**
 * The response side of the JSON codec (spec 2.1): how every presenter writes numbers and
 * times, and the schemas that say so in /v1/openapi.json.
 */

/** An 18-decimal amount: a string, so no client parses it into a float. */
export const decimal18 = z.string().describe('Decimal string, 18 decimals');
export const e18 = (v: bigint): string => formatScaled(v, 18);

/** int64 and uint64 travel as decimal strings (spec 2.1). */
export const int64String = z.string().regex(/^-?[0-9]+$/).describe('64-bit integer as a decimal string');
export const toInt64 = (v: bigint | number): string => v.toString();

export const rfc3339 = z.string().describe('RFC 3339 timestamp');
export const toRfc3339 = (d: Date): string => d.toISOString();

/** An optional enum of a row: an empty string on the wire when absent, as every absent string of the spec. */
export const orEmpty = <T extends Record<string, string>>(values: T) => z.union([z.enum(values), z.literal('')]);

export const base64 = z.string().describe('Base64');
export const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

/** The token of the next page; empty on the last one. */
export const nextPageToken = z.string().describe('Token of the next page; empty on the last page');
