import { createPublicKey, verify as nodeVerify, createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { ed25519PublicKeyObject, verifyEd25519 } from '../src/auth/signature.ts';
import { measure, table, type BenchResult } from './harness.ts';

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
  // What the server runs: verification in libuv's thread pool, many requests in flight.
  const serverKey = ed25519PublicKeyObject(publicKey);
  const inFlight = 64;
  const loop0 = performance.eventLoopUtilization();
  const pooled = await measure('verifyEd25519 (thread pool, 64 in flight) x 64', () => Promise.all(Array.from({ length: inFlight }, () => verifyEd25519(serverKey, message, signature))));
  const loop = performance.eventLoopUtilization(loop0);
  const pool: BenchResult = { ...pooled, name: 'src/auth verifyEd25519 (thread pool, 64 in flight)', opsPerSec: pooled.opsPerSec * inFlight, samples: pooled.samples * inFlight };
  const loopUsPerCheck = (loop.active * 1000) / (pooled.samples + 200) / inFlight;
  const syncUsPerCheck = 1e6 / node.opsPerSec;
  return [
    `### Ed25519 request-signature verification\n\n${table([baseline, node, noble, pool], baseline)}`,
    `node:crypto is ${(node.opsPerSec / noble.opsPerSec).toFixed(1)}x @noble/ed25519. In the thread pool a check costs the event loop about ${loopUsPerCheck.toFixed(0)} µs instead of ${syncUsPerCheck.toFixed(0)} µs inline (event-loop active time over the pooled run).`,
  ].join('\n\n');
}
