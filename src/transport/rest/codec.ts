/**
 * The JSON codec of spec 2.1: the request side lives with the operations' input schemas
 * (services/inputCodec.ts); the response side is plain functions.
 */
export { bytes, int32, INT32_MAX, int64, nonNegativeInt64, queryBool, queryInt, queryList, rfc3339, rfc3339Ns, uint64 } from '../../services/inputCodec.ts';

// Response side.
export const toInt64 = (v: bigint | number): string => v.toString();
export const toRfc3339 = (d: Date): string => d.toISOString();
export const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
