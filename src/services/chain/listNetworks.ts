import { MIN_DEPOSIT, NETWORK_LIST } from '../../domain/networks.ts';
import type { MarketCatalog } from '../markets.ts';

/**
 * The chains deposits and withdrawals may use (issue 14): registry ids, address family,
 * confirmation counts, and each asset as the chain carries it, with the unified asset it
 * stands for. Public: clients discover them before they ask for an address.
 */
export function listNetworks(markets: MarketCatalog) {
  return {
    networks: NETWORK_LIST.map((n) => ({
      registryChainId: n.registryChainId,
      name: n.name,
      family: n.family,
      nativeChainId: n.nativeChainId,
      depositConfirmations: n.depositConfirmations,
      withdrawConfirmations: n.withdrawConfirmations,
      // Only assets the exchange lists: a chain's other tokens cannot be credited.
      assets: n.assets.flatMap((a) => {
        const asset = markets.asset(a.symbol);
        return asset ? [{ symbol: a.symbol, unifiedAssetId: asset.unifiedAssetId, zippedAssetId: a.zippedAssetId, tokenAddress: a.tokenAddress ?? '', nativeDecimals: a.nativeDecimals, minDeposit: MIN_DEPOSIT[a.symbol] ?? '0', minWithdraw: MIN_DEPOSIT[a.symbol] ?? '0', withdrawFee: a.withdrawFee }] : [];
      }),
    })),
  };
}
