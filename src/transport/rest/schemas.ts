import { z } from 'zod';
import { queryInt } from './codec.ts';

/** Request fragments several /v1 routes share. */
export const pageQuery = (maxLimit: number) => ({
  limit: queryInt(1, maxLimit).optional(),
  pageToken: z.string().max(2048).optional(),
});

export const subaccountIdField = z.string().max(64).optional();
