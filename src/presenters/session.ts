import { z } from 'zod';
import { rfc3339, toRfc3339 } from './scalars.ts';

/** Wallet sign-in (spec 5): the message to sign, then the session it buys. */
export const walletNonceSchema = z.strictObject({ nonce: z.string(), message: z.string().describe('The EIP-191 message to sign'), expiresAt: rfc3339 });

export function presentWalletNonce(r: { nonce: string; message: string; expiresAt: Date }): z.infer<typeof walletNonceSchema> {
  return { nonce: r.nonce, message: r.message, expiresAt: toRfc3339(r.expiresAt) };
}

export const sessionSchema = z.strictObject({ sessionToken: z.string(), rootAccountId: z.string(), expiresAt: rfc3339 });

export function presentSession(r: { sessionToken: string; rootAccountId: string; expiresAt: Date }): z.infer<typeof sessionSchema> {
  return { sessionToken: r.sessionToken, rootAccountId: r.rootAccountId, expiresAt: toRfc3339(r.expiresAt) };
}

/** What an operation that only acknowledges answers. */
export const emptySchema = z.strictObject({});
export const presentEmpty = (): z.infer<typeof emptySchema> => ({});
