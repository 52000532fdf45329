import { z } from 'zod';
import { int32 } from '../inputCodec.ts';

export const createDepositAddressBody = z.strictObject({ chainId: int32(), subaccountId: z.string().max(64).optional() });
export type CreateDepositAddressBody = z.output<typeof createDepositAddressBody>;
