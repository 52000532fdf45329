import { z } from 'zod';
import type { Services } from '../../../services/index.ts';
import { int32 } from '../codec.ts';
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
      handler: async () => s.chain.listNetworks(),
    }),
    defineRoute({
      operationId: 'createDepositAddress',
      method: 'POST',
      url: '/v1/chain/deposit-addresses',
      summary: 'Create or return the deposit address of an account target on a chain (spec 4.7); needs WITHDRAW and the current terms',
      auth: 'caller',
      body: z.strictObject({ chainId: int32(), subaccountId: z.string().max(64).optional() }),
      handler: async ({ body }, ctx) => s.chain.createDepositAddress(ctx.caller, body),
    }),
  ];
}
