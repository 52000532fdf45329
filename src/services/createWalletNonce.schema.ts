import { z } from 'zod';

export const createWalletNonceBody = z.strictObject({ address: z.string().max(64) });
export type CreateWalletNonceBody = z.output<typeof createWalletNonceBody>;
