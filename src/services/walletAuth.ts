import { smartAccountAddressOf } from '../domain/smartAccounts.ts';
import { randomBytes } from 'node:crypto';
import { verifyMessage } from 'viem';
import { normaliseEvmAddress } from '../domain/networks.ts';
import { sha256, SESSION_TOKEN_PREFIX } from '../auth/authenticate.ts';
import type { Caller } from '../auth/caller.ts';
import { errors } from '../domain/errorCatalogue.ts';
import { invalidArgument } from '../domain/errors.ts';
import { newPublicId } from '../domain/ids.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import { retryOnUniqueRace } from '../infra/databaseErrors.ts';
import type { RateLimiter } from './rateLimits.ts';

export interface WalletAuthDeps {
  db: Db;
  clock: Clock;
  sessionTtlSeconds: number;
  signInDomain: string;
  limiter: RateLimiter;
  /** After a logout is committed: its open connections close, in every process. */
  onSessionEnded?: (sessionId: bigint) => void;
}

/** Where an unauthenticated request came from: AUTH_PUBLIC is charged per client IP. */
export interface PublicRequestMeta {
  clientIp: string;
}

export const NONCE_TTL_MS = 5 * 60 * 1000;

/**
 * Sign-in with an EVM wallet (our choice where spec 5.8 is silent): the server issues a
 * single-use EIP-4361-style message, the wallet signs it with personal_sign (EIP-191),
 * and a valid signature opens a session. The first sign-in of an address creates its
 * root account.
 */
export function createWalletAuthService(deps: WalletAuthDeps) {
  const { db, clock } = deps;

  const checksummed = (address: string) => normaliseEvmAddress(address, 'address');

  return {
    async createWalletNonce(input: { address: string }, meta: PublicRequestMeta) {
      await deps.limiter.admit('auth.wallet_nonce', { clientIp: meta.clientIp, authSubject: input.address });
      const address = checksummed(input.address);
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
      const nonce = randomBytes(16).toString('hex');
      const message = [
        `${deps.signInDomain} wants you to sign in with your Ethereum account:`,
        address,
        '',
        'Sign in to the spot exchange. This request will not trigger a blockchain transaction or cost any gas.',
        '',
        `URI: https://${deps.signInDomain}`,
        'Version: 1',
        'Chain ID: 1',
        `Nonce: ${nonce}`,
        `Issued At: ${now.toISOString()}`,
        `Expiration Time: ${expiresAt.toISOString()}`,
      ].join('\n');
      await db.walletNonce.create({ data: { nonce, address: address.toLowerCase(), message, expiresAt } });
      return { nonce, message, expiresAt };
    },

    async walletLogin(input: { address: string; message: string; signature: string }, meta: PublicRequestMeta) {
      await deps.limiter.admit('auth.wallet_login', { clientIp: meta.clientIp, authSubject: input.address });
      const address = checksummed(input.address);
      if (!/^0x[0-9a-fA-F]{130}$/.test(input.signature)) {
        throw invalidArgument('signature', 'must be a 65-byte 0x hex signature', 'evm-signature');
      }
      const nonce = /\nNonce: ([0-9a-f]{32})\n/.exec(input.message)?.[1];
      const rejected = () => errors.INVALID_SIGN_IN('sign-in message is unknown, expired or already used');
      if (!nonce) throw rejected();
      const issued = await db.walletNonce.findUnique({ where: { nonce } });
      const now = clock.now();
      if (!issued || issued.message !== input.message || issued.address !== address.toLowerCase() || issued.usedAt || issued.expiresAt <= now) {
        throw rejected();
      }
      const valid = await verifyMessage({
        address: address as `0x${string}`,
        message: input.message,
        signature: input.signature as `0x${string}`,
      }).catch(() => false);
      if (!valid) throw errors.INVALID_SIGNATURE('the signature is not the address’s');

      const token = `${SESSION_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const expiresAt = new Date(now.getTime() + deps.sessionTtlSeconds * 1000);
      // Two first sign-ins of one address race to create its account: the loser runs again
      // and finds it (its nonce consumption was rolled back with it).
      const account = await retryOnUniqueRace(() => db.$transaction(async (tx) => {
        // Consuming the nonce is the single-use guarantee: only one login can flip usedAt.
        const consumed = await tx.walletNonce.updateMany({ where: { id: issued.id, usedAt: null }, data: { usedAt: now } });
        if (consumed.count !== 1) throw rejected();
        const publicId = newPublicId();
        const root = await tx.account.upsert({
          where: { walletAddress: address.toLowerCase() },
          update: {},
          create: { publicId, smartAccountAddress: smartAccountAddressOf(publicId), kind: 'ROOT', walletAddress: address.toLowerCase() },
          select: { id: true, publicId: true },
        });
        await tx.session.create({ data: { tokenHash: sha256(token), accountId: root.id, expiresAt } });
        return root;
      }));
      return { sessionToken: token, rootAccountId: account.publicId, expiresAt };
    },

    async logout(caller: Caller) {
      if (caller.kind !== 'session') {
        throw errors.SESSION_REQUIRED('only a session can be logged out');
      }
      await db.session.update({ where: { id: caller.sessionId }, data: { revokedAt: clock.now() } });
      deps.onSessionEnded?.(caller.sessionId);
      return {};
    },
  };
}

export type WalletAuthService = ReturnType<typeof createWalletAuthService>;
