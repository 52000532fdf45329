import { z } from 'zod';

export const getTradingRateLimitsQuery = z.strictObject({ subaccountId: z.string().max(64).optional() });
export type GetTradingRateLimitsQuery = z.output<typeof getTradingRateLimitsQuery>;
