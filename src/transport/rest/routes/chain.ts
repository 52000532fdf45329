import { z } from 'zod';
import type { Services } from '../../../services/index.ts';
import { int32, queryInt, queryList } from '../codec.ts';
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
    defineRoute({
      operationId: 'listFlows',
      method: 'GET',
      url: '/v1/chain/flows',
      summary: 'Deposit and withdraw flows the caller may see, with every filter of spec 4.7, keyset paged',
      auth: 'caller',
      query: z.strictObject({
        flowKind: z.enum(['FLOW_KIND_UNSPECIFIED', 'DEPOSIT', 'WITHDRAW_TO_EXTERNAL_CHAIN', 'WITHDRAW_TO_FUNDING']).optional(),
        flowState: z.enum(['FLOW_STATE_UNSPECIFIED', 'PENDING_SOURCE', 'SOURCE_CONFIRMING', 'PENDING_VALIDATION', 'PENDING_DESTINATION', 'DESTINATION_CONFIRMING', 'COMPLETED', 'FAILED', 'REJECTED', 'EXPIRED', 'DROPPED']).optional(),
        scope: z.enum(['OPEN', 'TERMINAL', 'ALL']).optional(),
        orderBy: z.enum(['LAST_ACTIVITY', 'STARTED', 'UPDATED']).optional(),
        sort: z.enum(['NEWEST', 'OLDEST']).optional(),
        ownerAccountId: z.string().max(64).optional(),
        serviceChainIds: queryList(z.string().regex(/^[0-9]{1,10}$/, { error: 'must be an integer' })).optional(),
        unifiedAssetIds: queryList(z.string().regex(/^[0-9]{1,10}$/, { error: 'must be an integer' })).optional(),
        zippedAssetIds: queryList(z.string().regex(/^[0-9]{1,10}$/, { error: 'must be an integer' })).optional(),
        txRef: z.string().max(200).optional(),
        limit: queryInt(1, 500).optional(),
        pageToken: z.string().max(2048).optional(),
      }),
      handler: async ({ query }, ctx) => {
        const ints = (v?: string[]) => (v ? v.map(Number) : undefined);
        const { flowKind, flowState, serviceChainIds, unifiedAssetIds, zippedAssetIds, ...rest } = query;
        return s.chain.listFlows(ctx.caller, {
          ...rest,
          ...(flowKind && flowKind !== 'FLOW_KIND_UNSPECIFIED' ? { flowKind } : {}),
          ...(flowState && flowState !== 'FLOW_STATE_UNSPECIFIED' ? { flowState } : {}),
          ...(serviceChainIds ? { serviceChainIds: ints(serviceChainIds) } : {}),
          ...(unifiedAssetIds ? { unifiedAssetIds: ints(unifiedAssetIds) } : {}),
          ...(zippedAssetIds ? { zippedAssetIds: ints(zippedAssetIds) } : {}),
        });
      },
    }),
  ];
}
