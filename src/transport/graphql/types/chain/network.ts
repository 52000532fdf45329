import { presentNetwork } from '../../../../presenters/network.ts';
import { builder } from '../../builder.ts';
import { NetworkAsset, type NetworkShape } from './networkAsset.ts';

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

builder.queryField('chainNetworks', (t) =>
  t.field({ type: [Network], description: 'Supported chains, public', resolve: (_root, _args, ctx) => ctx.services.chain.listNetworks().networks.map(presentNetwork) }),
);
