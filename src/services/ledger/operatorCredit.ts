import { errors } from '../../domain/errorCatalogue.ts';
import { parseScaled, E18, MAX_LEDGER_AMOUNT_E18 } from '../../domain/money.ts';
import type { LedgerAccount } from '../../generated/prisma/client.ts';
import { assetOf, type BalanceRef, type LedgerContext } from './context.ts';

/** Operator credit: a DEPOSIT from the custody account into an account's ledger. */
export async function operatorCredit(ctx: LedgerContext, input: { accountId: string; asset: string; amount: string; ledgerAccount: LedgerAccount }) {
  const account = await ctx.db.account.findUnique({ where: { publicId: input.accountId }, select: { id: true, kind: true } });
  if (!account || account.kind === 'SYSTEM') throw errors.ACCOUNT_NOT_FOUND('account not found');
  const asset = assetOf(ctx, input.asset, 'asset');
  const amount = parseScaled(input.amount, E18, 'amount', { max: MAX_LEDGER_AMOUNT_E18 });
  const to: BalanceRef = { accountId: account.id, ledgerAccount: input.ledgerAccount, assetId: asset.unifiedAssetId };
  const from: BalanceRef = { accountId: ctx.systemAccounts.custody, ledgerAccount: 'FUNDING', assetId: asset.unifiedAssetId };
  return ctx.engine.transfer([to, from], (job) => {
    const t = job.post({ code: 'DEPOSIT' }, [{ ref: from, amount, kind: 'EXTERNAL_ADDRESS' }], [{ ref: to, amount }]);
    const b = job.balance(to);
    return { linkId: t.id, accountId: input.accountId, asset: asset.symbol, ledgerAccount: input.ledgerAccount, available: b.available, held: b.held };
  });
}
