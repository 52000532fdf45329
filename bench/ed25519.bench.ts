import { createPublicKey, verify as nodeVerify, createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { measure, table } from './harness.ts';

ed.hashes.sha512 = sha512;

/** Signature verification of a signed request: node:crypto (OpenSSL) against @noble/ed25519. */
export async function run(): Promise<string> {
  const secret = ed.utils.randomSecretKey();
  const publicKey = await ed.getPublicKeyAsync(secret);
  const message = new TextEncoder().encode(`${Date.now()}\nPOST\n/v1/orders\n{"order":{"symbol":"BTC-USDC"}}`);
  const signature = await ed.signAsync(message, secret);
  const keyObject = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]),
    format: 'der',
    type: 'spki',
  });

  const baseline = await measure('baseline: sha256 of the message', () => createHash('sha256').update(message).digest());
  const node = await measure('node:crypto verify (cached KeyObject)', () => nodeVerify(null, message, keyObject, signature));
  const noble = await measure('@noble/ed25519 verify', () => ed.verify(signature, message, publicKey));
  return `### Ed25519 request-signature verification\n\n${table([baseline, node, noble], baseline)}\n\nnode:crypto is ${(node.opsPerSec / noble.opsPerSec).toFixed(1)}x @noble/ed25519.`;
}
