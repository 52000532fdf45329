import { z } from 'zod';
import type { listNetworks } from '../services/chain/listNetworks.ts';

type NetworksView = ReturnType<typeof listNetworks>;
type NetworkView = NetworksView['networks'][number];
type NetworkAssetView = NetworkView['assets'][number];

const amount = (what: string) => z.string().describe(`${what}, a decimal string in the asset's unit`);

const networkAssetSchema = z.strictObject({
  symbol: z.string(),
  unifiedAssetId: z.number().int(),
  zippedAssetId: z.number().int(),
  tokenAddress: z.string().describe('Token contract or mint; empty for the native coin'),
  nativeDecimals: z.number().int(),
  minDeposit: amount('Smallest deposit credited'),
  minWithdraw: amount('Smallest withdrawal to this chain'),
  withdrawFee: amount('Network fee a withdrawal to this chain pays'),
});

/** A chain deposits and withdrawals may use (issue 14). */
export const networkSchema = z.strictObject({
  registryChainId: z.number().int(),
  name: z.string(),
  family: z.enum(['EVM', 'SOLANA']),
  nativeChainId: z.string(),
  depositConfirmations: z.number().int(),
  withdrawConfirmations: z.number().int(),
  assets: z.array(networkAssetSchema),
});

export const networksSchema = z.strictObject({ networks: z.array(networkSchema) });

const presentNetworkAsset = (a: NetworkAssetView): z.infer<typeof networkAssetSchema> => ({
  symbol: a.symbol,
  unifiedAssetId: a.unifiedAssetId,
  zippedAssetId: a.zippedAssetId,
  tokenAddress: a.tokenAddress,
  nativeDecimals: a.nativeDecimals,
  minDeposit: a.minDeposit,
  minWithdraw: a.minWithdraw,
  withdrawFee: a.withdrawFee,
});

export function presentNetwork(n: NetworkView): z.infer<typeof networkSchema> {
  return {
    registryChainId: n.registryChainId,
    name: n.name,
    family: n.family,
    nativeChainId: n.nativeChainId,
    depositConfirmations: n.depositConfirmations,
    withdrawConfirmations: n.withdrawConfirmations,
    assets: n.assets.map(presentNetworkAsset),
  };
}

export const presentNetworks = (v: NetworksView): z.infer<typeof networksSchema> => ({ networks: v.networks.map(presentNetwork) });
