import type { Caller } from '../../auth/caller.ts';
import { NETWORK_LIST } from '../../domain/networks.ts';
import type { Db } from '../../infra/database.ts';
import type { ChainContext } from './context.ts';
import { createDepositAddress } from './createDepositAddress.ts';
import { listNetworks } from './listNetworks.ts';

/**
 * The supported networks and their listed assets as rows (Chain, ChainAsset), written at
 * start-up like the markets, so deposit addresses and flows can reference them.
 */
export async function ensureNetworks(db: Db, markets: ChainContext['markets']): Promise<void> {
  for (const n of NETWORK_LIST) {
    const chain = { name: n.name, family: n.family, nativeChainId: n.nativeChainId, requiredConfirmations: n.depositConfirmations };
    await db.chain.upsert({ where: { chainId: n.registryChainId }, update: chain, create: { chainId: n.registryChainId, ...chain } });
    for (const a of n.assets) {
      const asset = markets.asset(a.symbol);
      if (!asset) continue;
      const row = { unifiedAssetId: asset.unifiedAssetId, chainId: n.registryChainId, tokenAddress: a.tokenAddress, nativeDecimals: a.nativeDecimals };
      await db.chainAsset.upsert({ where: { zippedAssetId: a.zippedAssetId }, update: row, create: { zippedAssetId: a.zippedAssetId, ...row } });
    }
  }
}

/** Chain operations (spec 4.7) as the transports call them. */
export function createChainService(ctx: ChainContext) {
  return {
    listNetworks: () => listNetworks(ctx.markets),
    createDepositAddress: (caller: Caller, input: { chainId: number; subaccountId?: string }) => createDepositAddress(ctx, caller, input),
  };
}
