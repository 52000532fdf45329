import { builder } from '../builder.ts';
import { callerOf, defined } from '../connections.ts';

type NetworkAssetShape = { symbol: string; unifiedAssetId: number; zippedAssetId: number; tokenAddress: string; nativeDecimals: number };
type NetworkShape = { registryChainId: number; name: string; family: string; nativeChainId: string; depositConfirmations: number; withdrawConfirmations: number; assets: NetworkAssetShape[] };

const NetworkAsset = builder.objectRef<NetworkAssetShape>('NetworkAsset').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    unifiedAssetId: t.exposeInt('unifiedAssetId'),
    zippedAssetId: t.exposeInt('zippedAssetId'),
    tokenAddress: t.exposeString('tokenAddress', { description: 'Token contract or mint; empty for the native coin' }),
    nativeDecimals: t.exposeInt('nativeDecimals'),
  }),
});

const Network = builder.objectRef<NetworkShape>('Network').implement({
  description: 'A chain deposits and withdrawals may use (as GET /v1/chain/networks)',
  fields: (t) => ({
    registryChainId: t.exposeInt('registryChainId'),
    name: t.exposeString('name'),
    family: t.exposeString('family'),
    nativeChainId: t.exposeString('nativeChainId'),
    depositConfirmations: t.exposeInt('depositConfirmations'),
    withdrawConfirmations: t.exposeInt('withdrawConfirmations'),
    assets: t.field({ type: [NetworkAsset], resolve: (n) => n.assets }),
  }),
});

const DepositAddress = builder.objectRef<{ chainId: number; depositAddress: string }>('DepositAddress').implement({
  description: 'Spec 2.15',
  fields: (t) => ({ chainId: t.exposeInt('chainId'), depositAddress: t.exposeString('depositAddress') }),
});

builder.queryField('chainNetworks', (t) =>
  t.field({ type: [Network], description: 'Supported chains, public', resolve: (_root, _args, ctx) => ctx.services.chain.listNetworks().networks }),
);

builder.mutationField('createDepositAddress', (t) =>
  t.field({
    type: DepositAddress,
    description: 'Creates or returns the deposit address of an account target on a chain (as POST /v1/chain/deposit-addresses)',
    args: { chainId: t.arg.int({ required: true }), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => (await ctx.services.chain.createDepositAddress(callerOf(ctx), defined(args) as { chainId: number })).depositAddress,
  }),
);
