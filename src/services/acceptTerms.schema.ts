import { z } from 'zod';

export const acceptTermsBody = z.strictObject({ version: z.string().max(64) });
export type AcceptTermsBody = z.output<typeof acceptTermsBody>;
