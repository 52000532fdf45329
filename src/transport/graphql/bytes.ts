import { invalidArgument } from '../../domain/errors.ts';

/**
 * `bytes` over GraphQL: base64 text in a String, as in /v1 (standard alphabet with
 * padding out; standard or URL-safe in). Malformed input is the same 400 REST gives.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function decodeBytes(text: string, fieldPath: string): Uint8Array {
  if (BASE64.test(text)) return new Uint8Array(Buffer.from(text, 'base64'));
  if (BASE64URL.test(text) && text.length % 4 !== 1) return new Uint8Array(Buffer.from(text, 'base64url'));
  throw invalidArgument(fieldPath, 'must be base64', 'base64');
}

export const encodeBytes = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
