import type { Services } from '../../../services/index.ts';
import { listNetworks } from '../../../services/networks.ts';
import { defineRoute } from '../route.ts';

/** Spec 4.7, chain side (issue 14): what clients discover first. */
export function chainRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'listNetworks',
      method: 'GET',
      url: '/v1/chain/networks',
      summary: 'Supported chains: registry ids, address family, deposit and withdraw confirmations, and the assets each carries',
      auth: 'public',
      handler: async () => listNetworks(s.markets),
    }),
  ];
}
