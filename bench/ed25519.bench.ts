import { createPublicKey, verify as nodeVerify, createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { verifyEd25519 } from '../src/auth/signature.ts';
import { measure, table, type BenchResult } from './harness.ts';

ed.hashes.sha512 = sha512;

/** Runs `fn` and returns it with the process's CPU time (all threads) per operation, in µs. */
async function withCpu(ops: (r: BenchResult) => number, fn: () => Promise<BenchResult>): Promise<[BenchResult, number]> {
  const before = process.cpuUsage();
  const result = await fn();
  const used = process.cpuUsage(before);
  return [result, (used.user + used.system) / ops(result)];
}

/**
 * Signature verification of a signed request: what the server runs (libsodium through
 * sodium-native, on the event loop) against node:crypto (OpenSSL), inline and in libuv's
 * thread pool, and @noble/ed25519. On a machine whose cores are shared with PostgreSQL and
 * Redis, the CPU a check costs across all threads is what decides, not the wall clock.
 */
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
  const inFlight = 64;
  const poolVerify = () =>
    new Promise<boolean>((resolve) => nodeVerify(null, message, keyObject, signature, (err, ok) => resolve(!err && ok)));
  const perCheck = (r: BenchResult) => r.samples + 200;

  const baseline = await measure('baseline: sha256 of the message', () => createHash('sha256').update(message).digest());
  const [server, serverCpu] = await withCpu(perCheck, () => measure('src/auth verifyEd25519 (libsodium, event loop)', () => verifyEd25519(publicKey, message, signature)));
  const [node, nodeCpu] = await withCpu(perCheck, () => measure('node:crypto verify (cached KeyObject, event loop)', () => nodeVerify(null, message, keyObject, signature)));
  const [pooled, pooledCpu] = await withCpu(
    (r) => perCheck(r) * inFlight,
    () => measure(`node:crypto verify in the thread pool, ${inFlight} in flight`, () => Promise.all(Array.from({ length: inFlight }, poolVerify))),
  );
  const pool: BenchResult = { ...pooled, opsPerSec: pooled.opsPerSec * inFlight, samples: pooled.samples * inFlight };
  const noble = await measure('@noble/ed25519 verify', () => ed.verify(signature, message, publicKey));
  const us = (n: number) => `${n.toFixed(0)} µs`;
  return [
    `### Ed25519 request-signature verification\n\n${table([baseline, server, node, pool, noble], baseline)}`,
    `CPU per check, all threads: libsodium ${us(serverCpu)}, node:crypto inline ${us(nodeCpu)}, node:crypto in the thread pool ${us(pooledCpu)} ` +
      `(the pool row's ops/s uses both cores). libsodium is ${(server.opsPerSec / node.opsPerSec).toFixed(1)}x node:crypto inline and ` +
      `${(server.opsPerSec / noble.opsPerSec).toFixed(0)}x @noble/ed25519.`,
  ].join('\n\n');
}
