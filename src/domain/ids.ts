import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';

/**
 * Random bytes are drawn from the CSPRNG a few kilobytes at a time, as node:crypto's
 * randomUUID does: each call to it costs about 40 µs here whatever its size, once per order.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let taken = 0;

function freshBytes(n: number): Uint8Array {
  if (n > POOL_BYTES) return randomBytes(n);
  if (taken + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    taken = 0;
  }
  // Copied out, so that no caller ever shares (or keeps alive) the pool's buffer.
  const out = Uint8Array.prototype.slice.call(pool, taken, taken + n);
  taken += n;
  return out;
}

/**
 * Public ids: base58 of random bytes. 16 bytes (~22 characters) cannot be guessed or
 * enumerated, so an id reveals nothing about how many others exist.
 */
export function newPublicId(bytes = 16): string {
  return base58.encode(freshBytes(bytes));
}

export const PUBLIC_ID = /^[1-9A-HJ-NP-Za-km-z]{1,64}$/;

/** `ak_` + 32 lower-case hex characters (spec 2.4). */
export function newApiKeyId(): string {
  return `ak_${randomBytes(16).toString('hex')}`;
}
