import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipAllowed, normalizeCidr } from '../../src/auth/ipWhitelist.ts';
import { isUsableEd25519PublicKey, signingString, verifyEd25519 } from '../../src/auth/signature.ts';

ed.hashes.sha512 = sha512;

/** The server verifies with libsodium; clients sign with @noble/ed25519. Both must agree. */
function both(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) {
  const server = verifyEd25519(publicKey, message, signature);
  let noble: boolean;
  try {
    noble = ed.verify(signature, message, publicKey);
  } catch {
    noble = false;
  }
  return { server, noble };
}

const L = 2n ** 252n + 27742317777372353535851937790883648493n;

function leBytes(n: bigint, length = 32): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

function fromLe(b: Uint8Array): bigint {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i] as number);
  return n;
}

describe('Ed25519 verification: the server agrees with @noble/ed25519', () => {
  const secretKey = ed.utils.randomSecretKey();
  const publicKey = ed.getPublicKey(secretKey);

  it('on valid signatures of arbitrary messages', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (message) => {
        const r = both(publicKey, message, ed.sign(message, secretKey));
        expect(r).toEqual({ server: true, noble: true });
      }),
      { numRuns: 60 },
    );
  });

  it('on corrupted signatures and messages', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 100 }), fc.nat(63), fc.integer({ min: 1, max: 255 }), (message, at, flip) => {
        const signature = ed.sign(message, secretKey);
        signature[at] = (signature[at] as number) ^ flip;
        const r = both(publicKey, message, signature);
        expect(r.server).toBe(r.noble);
        expect(r.server).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it('on malformed signatures: wrong lengths, all zeros, all ones', () => {
    const message = new TextEncoder().encode('m');
    for (const signature of [new Uint8Array(0), new Uint8Array(63), new Uint8Array(65), new Uint8Array(64), new Uint8Array(64).fill(255)]) {
      const r = both(publicKey, message, signature);
      expect(r.server).toBe(r.noble);
      expect(r.server).toBe(false);
    }
  });

  it('on a non-canonical S (S + L): both reject the malleated signature', () => {
    const message = new TextEncoder().encode('malleable?');
    const signature = ed.sign(message, secretKey);
    const s = fromLe(signature.subarray(32));
    const malleated = new Uint8Array(signature);
    malleated.set(leBytes(s + L), 32);
    const r = both(publicKey, message, malleated);
    expect(r).toEqual({ server: false, noble: false });
  });

  it('except on small-order points, which the server refuses where ZIP-215 accepts: as a key at registration, and in verification', () => {
    // The identity point as key and as R with S = 0 satisfies the verification equation for
    // every message: a "signature" that proves nothing, which libsodium refuses.
    const identity = leBytes(1n);
    const forged = new Uint8Array(64);
    forged.set(identity, 0);
    const r = both(identity, new TextEncoder().encode('anything'), forged);
    expect(r).toEqual({ server: false, noble: true });
    expect(isUsableEd25519PublicKey(identity)).toBe(false);
    expect(isUsableEd25519PublicKey(publicKey)).toBe(true);
    expect(isUsableEd25519PublicKey(new Uint8Array(32).fill(255))).toBe(false);
    expect(isUsableEd25519PublicKey(publicKey.subarray(1))).toBe(false);
  });
});

describe('the signed string', () => {
  it('is timestamp, method, target and body on four lines', () => {
    expect(signingString('1700000000000', 'post', '/v1/orders?x=1', '{"a":1}')).toBe('1700000000000\nPOST\n/v1/orders?x=1\n{"a":1}');
  });
});

describe('IP whitelists', () => {
  it('match IPv4 and IPv6 CIDRs, and IPv4-mapped IPv6 clients against IPv4 entries', () => {
    expect(ipAllowed('10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('11.1.2.3', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('2001:db8::1', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db9::1', ['2001:db8::/32'])).toBe(false);
    expect(ipAllowed('::1', ['127.0.0.1/32'])).toBe(false);
    expect(ipAllowed('anything', [])).toBe(true);
    expect(ipAllowed('garbage', ['10.0.0.0/8'])).toBe(false);
  });

  it('normalise entries so duplicates are recognised', () => {
    expect(normalizeCidr('10.0.0.1')).toBe('10.0.0.1/32');
    expect(normalizeCidr('0:0:0:0:0:0:0:1')).toBe('::1/128');
    expect(normalizeCidr('10.0.0.0/33')).toBeUndefined();
    expect(normalizeCidr('nope')).toBeUndefined();
  });
});
