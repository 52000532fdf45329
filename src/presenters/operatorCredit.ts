import { z } from 'zod';
import { ledgerAccount } from './balance.ts';
import { decimal18, e18, int64String } from './scalars.ts';

/** What crediting an account booked: the transfer, and the credited balance after it. */
export interface OperatorCreditView {
  linkId: bigint;
  accountId: string;
  asset: string;
  ledgerAccount: z.infer<typeof ledgerAccount>;
  available: bigint;
  held: bigint;
}

/** POST /operator/v1/credits. */
export const operatorCreditSchema = z.strictObject({
  linkId: int64String,
  balance: z.strictObject({ accountId: z.string(), asset: z.string().describe('Asset symbol'), ledgerAccount, available: decimal18, held: decimal18 }),
});

export function presentOperatorCredit(r: OperatorCreditView): z.infer<typeof operatorCreditSchema> {
  return { linkId: r.linkId.toString(), balance: { accountId: r.accountId, asset: r.asset, ledgerAccount: r.ledgerAccount, available: e18(r.available), held: e18(r.held) } };
}
