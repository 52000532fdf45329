import { z } from 'zod';

export const keyIdParams = z.object({ keyId: z.string().max(64) });
export type KeyIdParams = z.output<typeof keyIdParams>;
export { keyIdParams as getApiKeyParams };
