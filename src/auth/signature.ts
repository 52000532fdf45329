import sodium from 'sodium-native';

/**
 * Request signing (our choice where spec 5.7 is silent): the Ed25519 signature, standard
 * base64, over the UTF-8 bytes of
 *   timestamp + "\n" + METHOD + "\n" + pathWithQuery + "\n" + body
 * with pathWithQuery the request target exactly as sent and body the raw body ("" if none).
 */
export function signingString(timestamp: string, method: string, pathWithQuery: string, body: string): string {
  return `${timestamp}\n${method.toUpperCase()}\n${pathWithQuery}\n${body}`;
}

/**
 * Verification is libsodium's (sodium-native), on the event loop: measured at about half
 * the CPU of node:crypto's one-shot verify, and less than a node:crypto check costs in
 * libuv's thread pool once its hand-offs are counted (BENCHMARKS.md). It is RFC 8032 with
 * libsodium's strictness: a non-canonical S, R or public key, and a small-order R or public
 * key, never verify. False for any malformed input.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== sodium.crypto_sign_PUBLICKEYBYTES || signature.length !== sodium.crypto_sign_BYTES) return false;
  return sodium.crypto_sign_verify_detached(asBuffer(signature), asBuffer(message), asBuffer(publicKey));
}

/**
 * Whether a key can be registered: a canonical encoding of a point of the prime-order
 * subgroup, as every honestly generated Ed25519 public key is. Keys failing this could
 * never sign a request this server accepts.
 */
export function isUsableEd25519PublicKey(publicKey: Uint8Array): boolean {
  return publicKey.length === sodium.crypto_sign_PUBLICKEYBYTES && sodium.crypto_core_ed25519_is_valid_point(asBuffer(publicKey));
}

const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
