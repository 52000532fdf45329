import { z } from 'zod';
import { int32 } from '../inputCodec.ts';

export const validateWithdrawDestinationBody = z.strictObject({ chainId: int32(), address: z.string().min(1).max(128), subaccountId: z.string().max(64).optional() });
export type ValidateWithdrawDestinationBody = z.output<typeof validateWithdrawDestinationBody>;
