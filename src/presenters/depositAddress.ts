import { z } from 'zod';

/** Spec 2.15. */
export const depositAddressSchema = z.strictObject({
  chainId: z.number().int().describe('Registered source chain id'),
  depositAddress: z.string().describe('External-chain address'),
});

export const depositAddressEnvelopeSchema = z.strictObject({ depositAddress: depositAddressSchema });

export function presentDepositAddress(r: { chainId: number; depositAddress: string }): z.infer<typeof depositAddressSchema> {
  return { chainId: r.chainId, depositAddress: r.depositAddress };
}
