import { z } from 'zod';

export const setWithdrawAllowListBody = z.strictObject({ enabled: z.boolean() });
export type SetWithdrawAllowListBody = z.output<typeof setWithdrawAllowListBody>;
