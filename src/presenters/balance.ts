import { z } from 'zod';
import { decimal18, e18 } from './scalars.ts';

/** The ledger a balance lives in (spec 4.7). */
export const ledgerAccount = z.enum(['FUNDING', 'TRADING']);

/** A balance as the ledger service reads it from the engine: exact integers of 10^-18. */
export interface BalanceView {
  ledgerAccount: z.infer<typeof ledgerAccount>;
  asset: string;
  assetId: number;
  available: bigint;
  held: bigint;
}

export const balanceSchema = z.strictObject({
  ledgerAccount,
  asset: z.string().describe('Asset symbol'),
  assetId: z.string().describe('Unified asset id'),
  available: decimal18,
  held: decimal18,
  total: decimal18.describe('available + held, 18 decimals'),
});

export const balancesSchema = z.strictObject({
  accountId: z.string(),
  balances: z.array(balanceSchema),
});

export function presentBalance(b: BalanceView): z.infer<typeof balanceSchema> {
  return {
    ledgerAccount: b.ledgerAccount,
    asset: b.asset,
    assetId: String(b.assetId),
    available: e18(b.available),
    held: e18(b.held),
    total: e18(b.available + b.held),
  };
}

export function presentBalances(r: { accountId: string; balances: BalanceView[] }): z.infer<typeof balancesSchema> {
  return { accountId: r.accountId, balances: r.balances.map(presentBalance) };
}
