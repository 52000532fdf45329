import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipAllowed, normalizeCidr } from '../../src/auth/ipWhitelist.ts';
import { ed25519PublicKeyObject, signingString, verifyEd25519 } from '../../src/auth/signature.ts';

ed.hashes.sha512 = sha512;

/** The server verifies with node:crypto; clients sign with @noble/ed25519. Both must agree. */
async function both(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) {
  const node = await verifyEd25519(ed25519PublicKeyObject(publicKey), message, signature);
  let noble: boolean;
  try {
    noble = ed.verify(signature, message, publicKey);
  } catch {
    noble = false;
  }
  return { node, noble };
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

describe('Ed25519 verification: node:crypto agrees with @noble/ed25519', () => {
  const secretKey = ed.utils.randomSecretKey();
  const publicKey = ed.getPublicKey(secretKey);

  it('on valid signatures of arbitrary messages', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (message) => {
        const r = await both(publicKey, message, ed.sign(message, secretKey));
        expect(r).toEqual({ node: true, noble: true });
      }),
      { numRuns: 60 },
    );
  });

  it('on corrupted signatures and messages', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 100 }), fc.nat(63), fc.integer({ min: 1, max: 255 }), async (message, at, flip) => {
        const signature = ed.sign(message, secretKey);
        signature[at] = (signature[at] as number) ^ flip;
        const r = await both(publicKey, message, signature);
        expect(r.node).toBe(r.noble);
        expect(r.node).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it('on malformed signatures: wrong lengths, all zeros, all ones', async () => {
    const message = new TextEncoder().encode('m');
    for (const signature of [new Uint8Array(0), new Uint8Array(63), new Uint8Array(65), new Uint8Array(64), new Uint8Array(64).fill(255)]) {
      const r = await both(publicKey, message, signature);
      expect(r.node).toBe(r.noble);
      expect(r.node).toBe(false);
    }
  });

  it('on a non-canonical S (S + L): both reject the malleated signature', async () => {
    const message = new TextEncoder().encode('malleable?');
    const signature = ed.sign(message, secretKey);
    const s = fromLe(signature.subarray(32));
    const malleated = new Uint8Array(signature);
    malleated.set(leBytes(s + L), 32);
    const r = await both(publicKey, message, malleated);
    expect(r).toEqual({ node: false, noble: false });
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
