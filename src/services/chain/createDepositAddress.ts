import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { EXTERNAL_NETWORKS } from '../../domain/networks.ts';
import { retryOnUniqueRace } from '../../infra/databaseErrors.ts';
import { requirePermission, resolveAccount } from '../access.ts';
import type { ChainContext } from './context.ts';

/**
 * Spec 4.7 Create Deposit Address: creates or returns the one address of an account target
 * on a chain. Needs WITHDRAW (money moves), the root's acceptance of the current terms, and
 * a unit of DEPOSIT_CREATE.
 */
export async function createDepositAddress(ctx: ChainContext, caller: Caller, input: { chainId: number; subaccountId?: string }) {
  requirePermission(caller, 'WITHDRAW');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  await ctx.limiter.admit('deposit.create_address', { caller, account });
  await ctx.terms.requireAccepted(caller);
  const network = EXTERNAL_NETWORKS.get(input.chainId);
  if (!network) throw invalidArgument('chainId', `network ${input.chainId} is not supported (GET /v1/chain/networks lists them)`, 'unknown-network');
  const { address, derivationPath } = ctx.chain.depositAddress(account.id, network);
  // Concurrent calls derive the same address; the unique index keeps one row, and the loser reads it.
  const row = await retryOnUniqueRace(
    async () =>
      (await ctx.db.depositAddress.findUnique({ where: { accountId_chainId: { accountId: account.id, chainId: network.registryChainId } } })) ??
      ctx.db.depositAddress.create({ data: { accountId: account.id, chainId: network.registryChainId, address, derivationPath, createdAt: ctx.clock.now() } }),
  );
  return { depositAddress: { chainId: row.chainId, depositAddress: row.address } };
}
