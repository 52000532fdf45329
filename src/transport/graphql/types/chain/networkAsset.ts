import type { presentNetwork } from '../../../../presenters/network.ts';
import { builder } from '../../builder.ts';

/** The /v1 shape (presenters/network.ts): GraphQL resolves from the same presented values. */
export type NetworkShape = ReturnType<typeof presentNetwork>;

export const NetworkAsset = builder.objectRef<NetworkShape['assets'][number]>('NetworkAsset').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    unifiedAssetId: t.exposeInt('unifiedAssetId'),
    zippedAssetId: t.exposeInt('zippedAssetId'),
    tokenAddress: t.exposeString('tokenAddress', { description: 'Token contract or mint; empty for the native coin' }),
    nativeDecimals: t.exposeInt('nativeDecimals'),
    minDeposit: t.exposeString('minDeposit', { description: 'Smallest deposit credited, in the asset\'s unit' }),
    minWithdraw: t.exposeString('minWithdraw', { description: 'Smallest withdrawal to this chain, in the asset\'s unit' }),
    withdrawFee: t.exposeString('withdrawFee', { description: 'Network fee a withdrawal to this chain pays, in the asset\'s unit' }),
  }),
});
