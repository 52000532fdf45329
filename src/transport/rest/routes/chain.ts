import { depositAddressEnvelopeSchema, presentDepositAddress } from '../../../presenters/depositAddress.ts';
import { flowEnvelopeSchema, flowsSchema, presentFlow } from '../../../presenters/flow.ts';
import { networksSchema, presentNetworks } from '../../../presenters/network.ts';
import {
  destinationCheckSchema,
  presentDestinationCheck,
  presentWithdrawAccepted,
  presentWithdrawAllowList,
  withdrawAcceptedSchema,
  withdrawAllowListSchema,
} from '../../../presenters/withdraw.ts';
import { cancelTradingWithdrawParams } from '../../../services/chain/cancelTradingWithdraw.schema.ts';
import { createDepositAddressBody } from '../../../services/chain/createDepositAddress.schema.ts';
import { createTradingWithdrawBody, createWalletTradingWithdrawBody } from '../../../services/chain/createTradingWithdraw.schema.ts';
import { getFlowParams } from '../../../services/chain/getFlow.schema.ts';
import { listFlowsQuery } from '../../../services/chain/listFlows.schema.ts';
import { setWithdrawAllowListBody } from '../../../services/chain/setWithdrawAllowList.schema.ts';
import { validateWithdrawDestinationBody } from '../../../services/chain/validateWithdrawDestination.schema.ts';
import type { Services } from '../../../services/index.ts';
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
      response: networksSchema,
      handler: async () => presentNetworks(s.chain.listNetworks()),
    }),
    defineRoute({
      operationId: 'createDepositAddress',
      method: 'POST',
      url: '/v1/chain/deposit-addresses',
      summary: 'Create or return the deposit address of an account target on a chain (spec 4.7); needs WITHDRAW and the current terms',
      auth: 'caller',
      body: createDepositAddressBody,
      response: depositAddressEnvelopeSchema,
      handler: async ({ body }, ctx) => ({ depositAddress: presentDepositAddress((await s.chain.createDepositAddress(ctx.caller, body)).depositAddress) }),
    }),
    defineRoute({
      operationId: 'listFlows',
      method: 'GET',
      url: '/v1/chain/flows',
      summary: 'Deposit and withdraw flows the caller may see, with every filter of spec 4.7, keyset paged',
      auth: 'caller',
      query: listFlowsQuery,
      response: flowsSchema,
      handler: async ({ query }, ctx) => {
        const ints = (v?: string[]) => (v ? v.map(Number) : undefined);
        const { flowKind, flowState, serviceChainIds, unifiedAssetIds, zippedAssetIds, ...rest } = query;
        const r = await s.chain.listFlows(ctx.caller, {
          ...rest,
          ...(flowKind && flowKind !== 'FLOW_KIND_UNSPECIFIED' ? { flowKind } : {}),
          ...(flowState && flowState !== 'FLOW_STATE_UNSPECIFIED' ? { flowState } : {}),
          ...(serviceChainIds ? { serviceChainIds: ints(serviceChainIds) } : {}),
          ...(unifiedAssetIds ? { unifiedAssetIds: ints(unifiedAssetIds) } : {}),
          ...(zippedAssetIds ? { zippedAssetIds: ints(zippedAssetIds) } : {}),
        });
        return { flows: r.flows.map(presentFlow), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'getFlow',
      method: 'GET',
      url: '/v1/chain/flows/:flowId',
      summary: 'One deposit or withdraw flow by its id (a withdrawal\'s intentId is its flow\'s id); 404 FLOW_NOT_FOUND for one the caller may not see',
      auth: 'caller',
      params: getFlowParams,
      response: flowEnvelopeSchema,
      handler: async ({ params }, ctx) => ({ flow: presentFlow((await s.chain.getFlow(ctx.caller, params)).flow) }),
    }),
    defineRoute({
      operationId: 'createTradingWithdraw',
      method: 'POST',
      url: '/v1/chain/trading-withdraws',
      summary: 'Withdraw from Trading, authorized by the calling API key\'s Ed25519 signature of the canonical payload bytes (docs/api-decisions.md "Withdrawals")',
      auth: 'caller',
      body: createTradingWithdrawBody,
      response: withdrawAcceptedSchema,
      handler: async ({ body }, ctx) => presentWithdrawAccepted(await s.chain.createTradingWithdraw(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'createWalletTradingWithdraw',
      method: 'POST',
      url: '/v1/chain/trading-withdraws::wallet',
      summary: 'Withdraw from Trading, authorized by the account wallet\'s EIP-191 signature of the authorization message derived from the payload',
      auth: 'caller',
      body: createWalletTradingWithdrawBody,
      response: withdrawAcceptedSchema,
      handler: async ({ body }, ctx) => presentWithdrawAccepted(await s.chain.createWalletTradingWithdraw(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'cancelTradingWithdraw',
      method: 'POST',
      url: '/v1/chain/trading-withdraws/:intentId/cancel',
      summary: 'Cancel a withdrawal not yet broadcast, releasing its hold (docs/api-decisions.md "Withdrawal cancel"); 409 FLOW_STATE_CONFLICT once it is broadcast or ended',
      auth: 'caller',
      params: cancelTradingWithdrawParams,
      response: flowEnvelopeSchema,
      handler: async ({ params }, ctx) => ({ flow: presentFlow((await s.chain.cancelTradingWithdraw(ctx.caller, params)).flow) }),
    }),
    defineRoute({
      operationId: 'validateWithdrawDestination',
      method: 'POST',
      url: '/v1/chain/withdraw-destinations::validate',
      summary: 'Check an address on a network before withdrawing there: its address rule, whether it is internal, whether the address book (and its allow-list) admits it',
      auth: 'caller',
      body: validateWithdrawDestinationBody,
      response: destinationCheckSchema,
      handler: async ({ body }, ctx) => presentDestinationCheck(await s.chain.validateWithdrawDestination(ctx.caller, body)),
    }),
    defineRoute({
      operationId: 'getWithdrawAllowList',
      method: 'GET',
      url: '/v1/chain/withdraw-allow-list',
      summary: 'Whether the root account withdraws only to its address book',
      auth: 'caller',
      response: withdrawAllowListSchema,
      handler: async (_req, ctx) => presentWithdrawAllowList(await s.chain.getWithdrawAllowList(ctx.caller)),
    }),
    defineRoute({
      operationId: 'setWithdrawAllowList',
      method: 'PUT',
      url: '/v1/chain/withdraw-allow-list',
      summary: 'Switch the root account\'s withdrawal allow-list on or off; an API key may switch it on, only a wallet session off',
      auth: 'caller',
      body: setWithdrawAllowListBody,
      response: withdrawAllowListSchema,
      handler: async ({ body }, ctx) => presentWithdrawAllowList(await s.chain.setWithdrawAllowList(ctx.caller, body)),
    }),
  ];
}
