import { z } from 'zod';
import type { SubaccountView } from '../services/accounts/index.ts';
import { nextPageToken, rfc3339, toRfc3339 } from './scalars.ts';

export const subaccountSchema = z.strictObject({ subaccountId: z.string(), label: z.string(), createdAt: rfc3339 });
export const subaccountEnvelopeSchema = z.strictObject({ subaccount: subaccountSchema });
export const subaccountsSchema = z.strictObject({ subaccounts: z.array(subaccountSchema), nextPageToken });

export function presentSubaccount(v: SubaccountView): z.infer<typeof subaccountSchema> {
  return { subaccountId: v.subaccountId, label: v.label, createdAt: toRfc3339(v.createdAt) };
}
