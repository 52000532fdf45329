import { z } from 'zod';

export const SIGN_IN_MESSAGE_MAX = 2048;

export const walletLoginBody = z.strictObject({ address: z.string().max(64), message: z.string().max(SIGN_IN_MESSAGE_MAX), signature: z.string().max(200) });
export type WalletLoginBody = z.output<typeof walletLoginBody>;
