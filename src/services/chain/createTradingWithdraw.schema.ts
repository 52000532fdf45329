import { z } from 'zod';
import { bytes } from '../inputCodec.ts';

// One service file implements both variants (createTradingWithdraw.ts), so both schemas live here.
export const ED25519_SIGNATURE_BYTES = 64;
export const EIP191_SIGNATURE_BYTES = 65;

export const createTradingWithdrawBody = z.strictObject({ payload: bytes(), payloadSignature: bytes(ED25519_SIGNATURE_BYTES) });
export type CreateTradingWithdrawBody = z.output<typeof createTradingWithdrawBody>;

export const createWalletTradingWithdrawBody = z.strictObject({
  payload: bytes(),
  payloadSignature: bytes(EIP191_SIGNATURE_BYTES),
  signerWallet: z.string().min(1).max(64),
  subaccountId: z.string().max(64).optional(),
});
export type CreateWalletTradingWithdrawBody = z.output<typeof createWalletTradingWithdrawBody>;
