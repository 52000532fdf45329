import { z } from 'zod';

export const cancelTradingWithdrawParams = z.strictObject({ intentId: z.string().min(1).max(64) });
export type CancelTradingWithdrawParams = z.output<typeof cancelTradingWithdrawParams>;
