import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { randomInt } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { TEST_OPERATOR_TOKEN } from './infra.ts';

ed.hashes.sha512 = sha512;

/** A third party's wallet, signed in: what a real client does, over HTTP. */
export interface SignedIn {
  wallet: PrivateKeyAccount;
  token: string;
  rootAccountId: string;
  /** Headers that authenticate as this session. */
  auth: Record<string, string>;
}

export async function api(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** A client address of its own (via X-Forwarded-For), so AUTH_PUBLIC's per-IP quota is not shared. */
export function clientAddress(): Record<string, string> {
  return { 'x-forwarded-for': `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}` };
}

export async function signIn(baseUrl: string, wallet = privateKeyToAccount(generatePrivateKey())): Promise<SignedIn> {
  const from = clientAddress();
  const nonce = await api(baseUrl, 'POST', '/v1/auth/wallet/nonce', { address: wallet.address }, from);
  if (nonce.status !== 200) throw new Error(`nonce: ${nonce.status} ${JSON.stringify(nonce.body)}`);
  const signature = await wallet.signMessage({ message: nonce.body.message });
  const login = await api(baseUrl, 'POST', '/v1/auth/wallet/login', {
    address: wallet.address,
    message: nonce.body.message,
    signature,
  }, from);
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const token = login.body.sessionToken as string;
  return { wallet, token, rootAccountId: login.body.rootAccountId, auth: { authorization: `Bearer ${token}` } };
}

/** Lifts every non-trading quota of an account through the operator API (for bulk set-up). */
export async function liftLimits(baseUrl: string, accountId: string, pools = LIFTABLE_POOLS): Promise<void> {
  for (const pool of pools) {
    const r = await api(
      baseUrl,
      'PUT',
      '/operator/v1/rate-limit-overrides',
      { pool, accountId, quotaWeight: '100000', periodMs: '1000', burstWeight: '100000' },
      { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
    );
    if (r.status !== 200) throw new Error(`override: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

const LIFTABLE_POOLS = ['ACCOUNT_ADMIN', 'ACCOUNT_SECURITY', 'INTERNAL_TRANSFER', 'DEPOSIT_CREATE', 'WITHDRAW_SUBMIT', 'WITHDRAW_VALIDATE'];

/** Signs in, lifts the account's quotas and accepts the current terms: ready to create API keys. */
export async function onboard(baseUrl: string): Promise<SignedIn> {
  const who = await signIn(baseUrl);
  await liftLimits(baseUrl, who.rootAccountId);
  const terms = await api(baseUrl, 'GET', '/v1/auth/terms', undefined, who.auth);
  const accepted = await api(baseUrl, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, who.auth);
  if (accepted.status !== 200) throw new Error(`terms: ${accepted.status}`);
  return who;
}

/** An Ed25519 key pair made on the client; only the public half is ever sent. */
export interface ClientKey {
  keyId: string;
  secretKey: Uint8Array;
  publicKey: Uint8Array;
}

export function newKeyPair(): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const secretKey = ed.utils.randomSecretKey();
  return { secretKey, publicKey: ed.getPublicKey(secretKey) };
}

export interface SignOptions {
  timestamp?: string;
  /** Sign something other than what is sent (to prove tampering is caught). */
  signedPath?: string;
  signedBody?: string;
  secretKey?: Uint8Array;
}

/** The three headers of a signed request: timestamp\nMETHOD\npathWithQuery\nbody. */
export function signHeaders(key: ClientKey, method: string, pathWithQuery: string, body: string, options: SignOptions = {}) {
  const timestamp = options.timestamp ?? String(Date.now());
  const message = `${timestamp}\n${method}\n${options.signedPath ?? pathWithQuery}\n${options.signedBody ?? body}`;
  const signature = ed.sign(new TextEncoder().encode(message), options.secretKey ?? key.secretKey);
  return {
    'x-api-key-id': key.keyId,
    'x-api-timestamp': timestamp,
    'x-api-signature': Buffer.from(signature).toString('base64'),
  };
}

/** A request signed with an API key, exactly as a third-party client sends it. */
export async function signed(
  baseUrl: string,
  key: ClientKey,
  method: string,
  pathWithQuery: string,
  body?: unknown,
  options: SignOptions & { headers?: Record<string, string> } = {},
) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers = { ...signHeaders(key, method, pathWithQuery, text, options), ...options.headers };
  const res = await fetch(`${baseUrl}${pathWithQuery}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: text } : {}),
  });
  const out = await res.text();
  return { status: res.status, body: out ? JSON.parse(out) : undefined, headers: res.headers, sent: headers };
}
