import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';

/**
 * Public ids: base58 of random bytes. 16 bytes (~22 characters) cannot be guessed or
 * enumerated, so an id reveals nothing about how many others exist.
 */
export function newPublicId(bytes = 16): string {
  return base58.encode(randomBytes(bytes));
}

export const PUBLIC_ID = /^[1-9A-HJ-NP-Za-km-z]{1,64}$/;

/** `ak_` + 32 lower-case hex characters (spec 2.4). */
export function newApiKeyId(): string {
  return `ak_${randomBytes(16).toString('hex')}`;
}
