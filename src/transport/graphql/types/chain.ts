import { presentDepositAddress } from '../../../presenters/depositAddress.ts';
import { presentFlow } from '../../../presenters/flow.ts';
import { presentNetwork } from '../../../presenters/network.ts';
import { presentDestinationCheck } from '../../../presenters/withdraw.ts';
import { cancelTradingWithdrawParams } from '../../../services/chain/cancelTradingWithdraw.schema.ts';
import { createDepositAddressBody } from '../../../services/chain/createDepositAddress.schema.ts';
import { getFlowParams } from '../../../services/chain/getFlow.schema.ts';
import { listFlowsQuery } from '../../../services/chain/listFlows.schema.ts';
import { setWithdrawAllowListBody } from '../../../services/chain/setWithdrawAllowList.schema.ts';
import { validateWithdrawDestinationBody } from '../../../services/chain/validateWithdrawDestination.schema.ts';
import { builder } from '../builder.ts';
import { callerOf, defined } from '../connections.ts';
import { guardedStream } from '../guardedStream.ts';
import { decodeBytes } from '../bytes.ts';
import { parseArgs } from '../validate.ts';

/** The /v1 shapes (presenters/): GraphQL resolves from the same presented values. */
type NetworkShape = ReturnType<typeof presentNetwork>;
type NetworkAssetShape = NetworkShape['assets'][number];

const NetworkAsset = builder.objectRef<NetworkAssetShape>('NetworkAsset').implement({
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
  t.field({ type: [Network], description: 'Supported chains, public', resolve: (_root, _args, ctx) => ctx.services.chain.listNetworks().networks.map(presentNetwork) }),
);

builder.mutationField('createDepositAddress', (t) =>
  t.field({
    type: DepositAddress,
    description: 'Creates or returns the deposit address of an account target on a chain (as POST /v1/chain/deposit-addresses)',
    args: { chainId: t.arg.int({ required: true }), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      return presentDepositAddress((await ctx.services.chain.createDepositAddress(callerOf(ctx), parseArgs(createDepositAddressBody, args))).depositAddress);
    },
  }),
);

/** The /v1 shape (presenters/flow.ts): every resolver below reads a presented flow, so the two cannot drift. */
type FlowShape = ReturnType<typeof presentFlow>;
type ProgressShape = FlowShape['currentProgress'];
type TimelineShape = FlowShape['progressTimeline'][number];
type ZipperReasonShape = NonNullable<FlowShape['zipperReason']>;
type FeeShape = NonNullable<FlowShape['requestFee']>;

const RequestFee = builder.objectRef<FeeShape>('FlowRequestFee').implement({
  description: 'Spec 2.12 requestFee: LOCKED at submission, then SETTLED or REFUNDED',
  fields: (t) => ({
    amountE18Hi: t.string({ resolve: (f) => f.amountE18.hi }),
    amountE18Lo: t.string({ resolve: (f) => f.amountE18.lo }),
    unifiedAssetId: t.int({ resolve: (f) => f.assetIds.unifiedAssetId }),
    zippedAssetId: t.int({ resolve: (f) => f.assetIds.zippedAssetId }),
    recipientAddress: t.exposeString('recipientAddress'),
    status: t.exposeString('status'),
  }),
});

const FlowProgress = builder.objectRef<ProgressShape>('FlowProgress').implement({
  fields: (t) => ({
    currentStepStartedAtUnixMs: t.exposeString('currentStepStartedAtUnixMs'),
    currentStepExpectedDurationMs: t.exposeString('currentStepExpectedDurationMs'),
    currentConfirmations: t.exposeInt('currentConfirmations'),
    requiredConfirmations: t.exposeInt('requiredConfirmations'),
    approveCount: t.exposeInt('approveCount'),
    rejectCount: t.exposeInt('rejectCount'),
    validatorCount: t.exposeInt('validatorCount'),
    requiredApprovals: t.exposeInt('requiredApprovals'),
    requiredRejections: t.exposeInt('requiredRejections'),
  }),
});
const FlowTimelineItem = builder.objectRef<TimelineShape>('FlowTimelineItem').implement({
  fields: (t) => ({ sequence: t.exposeInt('sequence'), step: t.exposeString('step'), status: t.exposeString('status'), expectedDurationMs: t.exposeString('expectedDurationMs') }),
});
const ZipperReason = builder.objectRef<ZipperReasonShape>('FlowZipperReason').implement({
  description: 'Spec 2.12 zipperReason: why validation held or refused a flow',
  fields: (t) => ({ code: t.exposeString('code'), reasonId: t.exposeString('reasonId'), message: t.exposeString('message') }),
});
const Flow = builder.objectRef<FlowShape>('Flow').implement({
  description: 'A deposit or withdraw lifecycle flow (spec 2.12)',
  fields: (t) => ({
    flowId: t.exposeString('flowId'),
    ownerAccountId: t.exposeString('ownerAccountId'),
    smartAccountAddress: t.exposeString('smartAccountAddress'),
    flowKind: t.exposeString('flowKind'),
    flowState: t.exposeString('flowState'),
    currentStep: t.exposeString('currentStep'),
    currentStepSequence: t.exposeInt('currentStepSequence'),
    unifiedAssetId: t.int({ resolve: (f) => f.assetIds.unifiedAssetId }),
    zippedAssetId: t.int({ resolve: (f) => f.assetIds.zippedAssetId }),
    amountE18Hi: t.string({ resolve: (f) => f.amountE18.hi }),
    amountE18Lo: t.string({ resolve: (f) => f.amountE18.lo }),
    serviceChainId: t.exposeInt('serviceChainId'),
    sourceDomain: t.exposeString('sourceDomain'),
    destinationDomain: t.exposeString('destinationDomain'),
    sourceAddress: t.exposeString('sourceAddress'),
    destinationAddress: t.exposeString('destinationAddress'),
    sourceTxHash: t.exposeString('sourceTxHash'),
    latestTxRef: t.exposeString('latestTxRef'),
    txOccurrenceIndex: t.exposeString('txOccurrenceIndex'),
    lifecycleReason: t.exposeString('lifecycleReason'),
    latestLifecycleSource: t.exposeString('latestLifecycleSource'),
    zipperReason: t.field({ type: ZipperReason, nullable: true, resolve: (f) => f.zipperReason }),
    isOpen: t.exposeBoolean('isOpen'),
    isTerminal: t.exposeBoolean('isTerminal'),
    startedAtUnixMs: t.exposeString('startedAtUnixMs'),
    updatedAtUnixMs: t.exposeString('updatedAtUnixMs'),
    lastActivityAtUnixMs: t.exposeString('lastActivityAtUnixMs'),
    terminalAtUnixMs: t.exposeString('terminalAtUnixMs'),
    estimatedCompletionUnixMs: t.exposeString('estimatedCompletionUnixMs'),
    currentProgress: t.field({ type: FlowProgress, resolve: (f) => f.currentProgress }),
    progressTimeline: t.field({ type: [FlowTimelineItem], resolve: (f) => f.progressTimeline }),
    requestFee: t.field({ type: RequestFee, nullable: true, resolve: (f) => f.requestFee ?? null }),
  }),
});
const FlowPage = builder.objectRef<{ flows: FlowShape[]; nextPageToken: string }>('FlowPage').implement({
  fields: (t) => ({ flows: t.field({ type: [Flow], resolve: (p) => p.flows }), nextPageToken: t.exposeString('nextPageToken') }),
});

// Enums, so a value List Flows does not know is a GraphQL validation error, as on /v1.
const FlowKindArg = builder.enumType('FlowKindFilter', { values: ['DEPOSIT', 'WITHDRAW_TO_EXTERNAL_CHAIN', 'WITHDRAW_TO_FUNDING'] as const });
const FlowStateArg = builder.enumType('FlowStateFilter', {
  values: ['PENDING_SOURCE', 'SOURCE_CONFIRMING', 'PENDING_VALIDATION', 'PENDING_DESTINATION', 'DESTINATION_CONFIRMING', 'COMPLETED', 'FAILED', 'REJECTED', 'EXPIRED', 'DROPPED'] as const,
});
const FlowScopeArg = builder.enumType('FlowScope', { values: ['OPEN', 'TERMINAL', 'ALL'] as const });
const FlowOrderArg = builder.enumType('FlowOrderBy', { values: ['LAST_ACTIVITY', 'STARTED', 'UPDATED'] as const });
const FlowSortArg = builder.enumType('FlowSort', { values: ['NEWEST', 'OLDEST'] as const });

builder.queryField('chainFlows', (t) =>
  t.field({
    type: FlowPage,
    description: 'Flows the caller may see (as GET /v1/chain/flows)',
    args: {
      flowKind: t.arg({ type: FlowKindArg }),
      flowState: t.arg({ type: FlowStateArg }),
      scope: t.arg({ type: FlowScopeArg }),
      orderBy: t.arg({ type: FlowOrderArg }),
      sort: t.arg({ type: FlowSortArg }),
      ownerAccountId: t.arg.string(),
      serviceChainIds: t.arg.intList(),
      unifiedAssetIds: t.arg.intList(),
      zippedAssetIds: t.arg.intList(),
      txRef: t.arg.string(),
      smartAccountAddress: t.arg.string(),
      flowId: t.arg.string(),
      limit: t.arg.int(),
      pageToken: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      // /v1 reads `limit` and the id lists from the query string, as text.
      const text = (ids: readonly (number | null)[] | null | undefined) => ids?.map(String);
      parseArgs(listFlowsQuery, {
        ...args,
        limit: args.limit == null ? undefined : String(args.limit),
        serviceChainIds: text(args.serviceChainIds),
        unifiedAssetIds: text(args.unifiedAssetIds),
        zippedAssetIds: text(args.zippedAssetIds),
      });
      const r = await ctx.services.chain.listFlows(callerOf(ctx), (defined(args) ?? {}) as never);
      return { flows: r.flows.map(presentFlow), nextPageToken: r.nextPageToken };
    },
  }),
);

builder.queryField('flow', (t) =>
  t.field({
    type: Flow,
    description: 'One flow by its id; a withdrawal\'s intentId is its flow\'s id (as GET /v1/chain/flows/{flowId})',
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      return presentFlow((await ctx.services.chain.getFlow(callerOf(ctx), parseArgs(getFlowParams, { flowId: args.id }))).flow);
    },
  }),
);

builder.subscriptionField('flowUpdates', (t) =>
  t.field({
    type: Flow,
    description: 'Every stored change of the flows the caller may see, each step as it happens',
    subscribe: async (_root, _args, ctx) => guardedStream(ctx, callerOf(ctx), await ctx.services.chain.subscribeFlows(callerOf(ctx))),
    resolve: (payload) => presentFlow(payload.flow),
  }),
);

const WithdrawIntent = builder.objectRef<{ intentId: string }>('WithdrawIntent').implement({
  description: 'A withdrawal from Trading, followed through its flow',
  fields: (t) => ({ intentId: t.exposeString('intentId') }),
});

builder.mutationField('createTradingWithdraw', (t) =>
  t.field({
    type: WithdrawIntent,
    description: 'Withdraw from Trading, signed by the calling API key over the canonical payload bytes (as POST /v1/chain/trading-withdraws)',
    args: { payload: t.arg.string({ required: true, description: 'base64 of the canonical payload bytes' }), payloadSignature: t.arg.string({ required: true, description: 'base64 Ed25519 signature' }) },
    resolve: (_root, args, ctx) => ctx.services.chain.createTradingWithdraw(callerOf(ctx), { payload: decodeBytes(args.payload, 'payload'), payloadSignature: decodeBytes(args.payloadSignature, 'payloadSignature') }),
  }),
);

builder.mutationField('createWalletTradingWithdraw', (t) =>
  t.field({
    type: WithdrawIntent,
    description: 'Withdraw from Trading, authorized by the account wallet\'s EIP-191 signature of the authorization message (as POST /v1/chain/trading-withdraws:wallet)',
    args: {
      payload: t.arg.string({ required: true, description: 'base64 of the canonical payload bytes' }),
      payloadSignature: t.arg.string({ required: true, description: 'base64 of the 65-byte signature' }),
      signerWallet: t.arg.string({ required: true }),
      subaccountId: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.chain.createWalletTradingWithdraw(callerOf(ctx), {
        payload: decodeBytes(args.payload, 'payload'),
        payloadSignature: decodeBytes(args.payloadSignature, 'payloadSignature'),
        signerWallet: args.signerWallet,
        ...(args.subaccountId ? { subaccountId: args.subaccountId } : {}),
      }),
  }),
);

builder.mutationField('cancelTradingWithdraw', (t) =>
  t.field({
    type: Flow,
    description: 'Cancel a withdrawal not yet broadcast, releasing its hold; its flow ends FAILED with USER_CANCELED (as POST /v1/chain/trading-withdraws/{intentId}/cancel)',
    args: { intentId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      return presentFlow((await ctx.services.chain.cancelTradingWithdraw(callerOf(ctx), parseArgs(cancelTradingWithdrawParams, args))).flow);
    },
  }),
);

type CheckShape = ReturnType<typeof presentDestinationCheck>;
const DestinationCheck = builder.objectRef<CheckShape>('WithdrawDestinationCheck').implement({
  fields: (t) => ({
    valid: t.exposeBoolean('valid'),
    normalizedAddress: t.exposeString('normalizedAddress'),
    reason: t.exposeString('reason'),
    isInternal: t.exposeBoolean('isInternal'),
    inAddressBook: t.exposeBoolean('inAddressBook'),
    addressBookEntryId: t.exposeString('addressBookEntryId'),
    allowListOnly: t.exposeBoolean('allowListOnly'),
    allowed: t.exposeBoolean('allowed'),
  }),
});

builder.mutationField('validateWithdrawDestination', (t) =>
  t.field({
    type: DestinationCheck,
    description: 'Checks an address on a network before withdrawing there (as POST /v1/chain/withdraw-destinations:validate; charges WITHDRAW_VALIDATE)',
    args: { chainId: t.arg.int({ required: true }), address: t.arg.string({ required: true }), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => presentDestinationCheck(await ctx.services.chain.validateWithdrawDestination(callerOf(ctx), parseArgs(validateWithdrawDestinationBody, args))),
  }),
);

builder.queryField('withdrawAllowListOnly', (t) =>
  t.boolean({ description: 'Whether the root account withdraws only to its address book', resolve: async (_root, _args, ctx) => (await ctx.services.chain.getWithdrawAllowList(callerOf(ctx))).allowListOnly }),
);

builder.mutationField('setWithdrawAllowList', (t) =>
  t.boolean({
    description: 'Switches the withdrawal allow-list on or off (an API key may only switch it on); answers the new state',
    args: { enabled: t.arg.boolean({ required: true }) },
    resolve: async (_root, args, ctx) => (await ctx.services.chain.setWithdrawAllowList(callerOf(ctx), parseArgs(setWithdrawAllowListBody, args))).allowListOnly,
  }),
);
