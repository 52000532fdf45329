import * as ed from '@noble/ed25519';
import { createHash } from 'node:crypto';
import type { PrivateKeyAccount } from 'viem/accounts';
import { authorizationMessage, type WithdrawPayload } from '../../src/domain/withdrawPayload.ts';
import { api, signed, type ClientKey, type SignedIn } from './auth.ts';
import { TEST_OPERATOR_TOKEN } from './infra.ts';

/** The canonical payload bytes as a client builds them: sorted keys, no whitespace (docs/api-decisions.md). */
export function payloadBytes(p: Record<string, unknown>): Uint8Array {
  const sorted = Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)));
  return new TextEncoder().encode(JSON.stringify(sorted));
}

let nonces = BigInt(Date.now()) * 1000n;
/** A fresh payload: a deadline ten minutes ahead, a new nonce and idempotency key. */
export function payload(fields: Partial<WithdrawPayload> & Pick<WithdrawPayload, 'action' | 'amount' | 'assetId'>): WithdrawPayload {
  nonces += 1n;
  return { deadlineTsSec: String(Math.floor(Date.now() / 1000) + 600), idempotencyKey: `k-${nonces}`, nonce: String(nonces), ...fields };
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** Create Trading Withdraw signed by `key` (or by `signer`, to prove another key's signature is refused). */
export function withdrawWithKey(baseUrl: string, key: ClientKey, p: WithdrawPayload | Uint8Array, signer: Uint8Array = key.secretKey, requestTimestamp?: string) {
  const bytes = p instanceof Uint8Array ? p : payloadBytes(p as unknown as Record<string, unknown>);
  return signed(baseUrl, key, 'POST', '/v1/chain/trading-withdraws', { payload: b64(bytes), payloadSignature: b64(ed.sign(bytes, signer)) }, requestTimestamp ? { timestamp: requestTimestamp } : {});
}

/** The account wallet's (or `signer`'s) EIP-191 signature of the authorization message, base64. */
export async function walletSignature(me: SignedIn, p: WithdrawPayload, options: { signer?: PrivateKeyAccount; accountId?: string; destinationLabel: string; symbol: string }): Promise<string> {
  const bytes = payloadBytes(p as unknown as Record<string, unknown>);
  const message = authorizationMessage({
    domain: 'spot.example',
    accountId: options.accountId ?? me.rootAccountId,
    payload: p,
    assetSymbol: options.symbol,
    destinationLabel: options.destinationLabel,
    payloadSha256Hex: createHash('sha256').update(bytes).digest('hex'),
  });
  const signature = await (options.signer ?? me.wallet).signMessage({ message });
  return Buffer.from(signature.slice(2), 'hex').toString('base64');
}

/** Create Wallet Trading Withdraw: `signer` signs the authorization message derived from the payload. */
export async function withdrawWithWallet(baseUrl: string, me: SignedIn, p: WithdrawPayload, options: { signer?: PrivateKeyAccount; signerWallet?: string; accountId?: string; subaccountId?: string; destinationLabel: string; symbol: string }) {
  return api(baseUrl, 'POST', '/v1/chain/trading-withdraws:wallet', {
    payload: b64(payloadBytes(p as unknown as Record<string, unknown>)),
    payloadSignature: await walletSignature(me, p, options),
    signerWallet: options.signerWallet ?? me.wallet.address,
    ...(options.subaccountId ? { subaccountId: options.subaccountId } : {}),
  }, me.auth);
}

/** Lifts a key's own WITHDRAW_SUBMIT and WITHDRAW_VALIDATE quotas (the account's are lifted by `onboard`). */
export async function liftKey(baseUrl: string, keyId: string): Promise<void> {
  for (const pool of ['WITHDRAW_SUBMIT', 'WITHDRAW_VALIDATE']) {
    const r = await api(baseUrl, 'PUT', '/operator/v1/rate-limit-overrides', { pool, apiKeyId: keyId, quotaWeight: '100000', periodMs: '1000', burstWeight: '100000' }, { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` });
    if (r.status !== 200) throw new Error(`override: ${r.status} ${JSON.stringify(r.body)}`);
  }
}
