import type { Caller } from '../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../access.ts';
import type { Asset } from '../markets.ts';
import type { LedgerContext } from './context.ts';

/** GET /v1/balances: every non-zero balance of the account, both ledgers. */
export async function listBalances(ctx: LedgerContext, caller: Caller, input: { subaccountId?: string }) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  // From the engine's memory, read in sequence: every acknowledged change, no wait for the projection.
  const rows = await ctx.engine.balancesOf(account.id, ctx.markets.assets.map((a) => a.unifiedAssetId));
  return {
    accountId: account.publicId,
    balances: rows
      .filter((r) => r.available !== 0n || r.held !== 0n)
      .map((r) => ({
        ledgerAccount: r.ledgerAccount,
        asset: (ctx.markets.asset(r.assetId) as Asset).symbol,
        assetId: r.assetId,
        available: r.available,
        held: r.held,
      })),
  };
}
