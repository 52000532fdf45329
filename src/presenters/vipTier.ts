import { z } from 'zod';
import { MAX_VIP_TIER } from '../domain/ratelimit/catalog.ts';

/** PUT /operator/v1/accounts/{accountId}/vip-tier: the root account and the tier it now has. */
export const vipTierSchema = z.strictObject({ accountId: z.string(), vipTier: z.number().int().min(0).max(MAX_VIP_TIER) });

export function presentVipTier(r: { accountId: string; vipTier: number }): z.infer<typeof vipTierSchema> {
  return { accountId: r.accountId, vipTier: r.vipTier };
}
