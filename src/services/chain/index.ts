import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { NETWORK_LIST } from '../../domain/networks.ts';
import { smartAccountAddressOf } from '../../domain/smartAccounts.ts';
import type { LifecycleFlow, Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../infra/database.ts';
import type { ChainContext, FlowEvent } from './context.ts';
import { requirePermission, resolveAccount } from '../access.ts';
import { advanceDeposits } from './advanceDeposits.ts';
import { advanceWithdrawals, cancelWithdraw, failWithdraw } from './advanceWithdrawals.ts';
import { createTradingWithdraw, type TradingWithdrawInput } from './createTradingWithdraw.ts';
import { getWithdrawAllowList, setWithdrawAllowList } from './setWithdrawAllowList.ts';
import { validateWithdrawDestination } from './validateWithdrawDestination.ts';
import { createDepositAddress } from './createDepositAddress.ts';
import { dropDeposit } from './dropDeposit.ts';
import { flowView } from './flowView.ts';
import { getFlow } from './getFlow.ts';
import { listFlows, type ListFlowsInput } from './listFlows.ts';
import { listNetworks } from './listNetworks.ts';
import { observeDeposit } from './observeDeposit.ts';

export type { ChainTopics } from './context.ts';
export { FLOW_COLUMNS, flowView, type FlowView } from './flowView.ts';
export { OWNER } from './listFlows.ts';

/**
 * The supported networks and their listed assets as rows (Chain, ChainAsset), written at
 * start-up like the markets, so deposit addresses and flows can reference them.
 */
export async function ensureNetworks(db: Db, markets: ChainContext['markets']): Promise<void> {
  for (const n of NETWORK_LIST) {
    const chain = { name: n.name, family: n.family, nativeChainId: n.nativeChainId, requiredConfirmations: n.depositConfirmations };
    await db.chain.upsert({ where: { chainId: n.registryChainId }, update: chain, create: { chainId: n.registryChainId, ...chain } });
    for (const a of n.assets) {
      const asset = markets.asset(a.symbol);
      if (!asset) continue;
      const row = { unifiedAssetId: asset.unifiedAssetId, chainId: n.registryChainId, tokenAddress: a.tokenAddress, nativeDecimals: a.nativeDecimals };
      await db.chainAsset.upsert({ where: { zippedAssetId: a.zippedAssetId }, update: row, create: { zippedAssetId: a.zippedAssetId, ...row } });
    }
  }
}

/**
 * Accounts made before smart-account addresses existed get theirs (derived from the public
 * id, so every process writes the same), a batch at a time, at start-up.
 */
export async function assignSmartAccountAddresses(db: Db): Promise<void> {
  for (;;) {
    const missing = await db.account.findMany({ where: { smartAccountAddress: null, kind: { in: ['ROOT', 'SUBACCOUNT'] } }, select: { id: true, publicId: true }, take: 500 });
    if (missing.length === 0) return;
    for (const a of missing) await db.account.update({ where: { id: a.id }, data: { smartAccountAddress: smartAccountAddressOf(a.publicId) } });
  }
}

/**
 * Chain operations (spec 4.7, and the operator's simulated chain) keyed by their
 * operationId. Building the table only closes over the context, so the operation names can
 * be read without one.
 */
export function chainOperations(ctx: ChainContext) {
  const ownerOf = async (accountId: bigint) => (await ctx.db.account.findUniqueOrThrow({ where: { id: accountId }, select: { publicId: true } })).publicId;
  const viewOf = async (row: LifecycleFlow) => flowView(row, await ownerOf(row.ownerAccountId));
  return {
    listNetworks: () => listNetworks(ctx.markets),
    createDepositAddress: (caller: Caller, input: { chainId: number; subaccountId?: string }) => createDepositAddress(ctx, caller, input),
    listFlows: (caller: Caller, input: ListFlowsInput, include: Prisma.LifecycleFlowInclude = {}) => listFlows(ctx, caller, input, include),
    getFlow: (caller: Caller, input: { flowId: string }, include: Prisma.LifecycleFlowInclude = {}) => getFlow(ctx, caller, input, include),
    createTradingWithdraw: (caller: Caller, input: TradingWithdrawInput) => createTradingWithdraw(ctx, caller, 'API_KEY', input),
    createWalletTradingWithdraw: (caller: Caller, input: TradingWithdrawInput) => createTradingWithdraw(ctx, caller, 'WALLET', input),
    validateWithdrawDestination: (caller: Caller, input: { chainId: number; address: string; subaccountId?: string }) => validateWithdrawDestination(ctx, caller, input),
    setWithdrawAllowList: (caller: Caller, input: { enabled: boolean }) => setWithdrawAllowList(ctx, caller, input),
    getWithdrawAllowList: (caller: Caller) => getWithdrawAllowList(ctx, caller),
    /** Its owner cancels a withdrawal not yet broadcast (WITHDRAW permission); a flow the caller may not see is missing. */
    async cancelTradingWithdraw(caller: Caller, input: { intentId: string }) {
      requirePermission(caller, 'WITHDRAW');
      const scoped = caller.kind === 'apiKey' && caller.subaccountId !== undefined ? await resolveAccount(ctx.db, caller, undefined) : undefined;
      if (input.intentId.length > 64) throw errors.FLOW_NOT_FOUND('no withdrawal awaiting broadcast has this id');
      const row = await cancelWithdraw(ctx, { publicId: input.intentId, ...(scoped ? { ownerAccountId: scoped.id } : { rootAccountId: caller.rootAccountId }) });
      return { flow: await viewOf(row) };
    },
    /** Operator: the simulated chain's validators reject a withdrawal awaiting validation. */
    rejectWithdrawal: async (input: { flowId: string }) => viewOf(await failWithdraw(ctx, { flowId: input.flowId, how: 'REJECT' })),
    /** Operator: a broadcast withdrawal's transaction left the simulated chain. */
    dropWithdrawal: async (input: { flowId: string }) => viewOf(await failWithdraw(ctx, { flowId: input.flowId, how: 'DROP' })),
    /** Operator: the simulated chain saw a transfer to a deposit address. */
    observeDeposit: async (input: Parameters<typeof observeDeposit>[1]) => viewOf(await observeDeposit(ctx, input)),
    /** Operator: the simulated chain dropped a deposit's transaction. */
    dropDeposit: async (input: { flowId: string }) => viewOf(await dropDeposit(ctx, input)),
  };
}

/** The chain service: its operations, its flows' stream, and the simulated chain's blocks. */
export function createChainService(ctx: ChainContext) {
  // The first block comes one interval after start, like every later one.
  let lastBlockAt = ctx.clock.now().getTime();
  return {
    ...chainOperations(ctx),
    /** `flowUpdates`: the changes of the flows the caller may see, after each is stored. */
    async subscribeFlows(caller: Caller): Promise<AsyncIterableIterator<FlowEvent>> {
      requirePermission(caller, 'READ');
      const own = caller.kind === 'apiKey' && caller.subaccountId !== undefined ? (await resolveAccount(ctx.db, caller, undefined)).publicId : undefined;
      return ctx.topics.subscribe('flows', caller.rootPublicId, own === undefined ? undefined : (e) => e.ownerAccountId === own);
    },
    /** On the sweep timer: a block of the simulated chain once per block interval. */
    async tick(): Promise<void> {
      const now = ctx.clock.now().getTime();
      if (now - lastBlockAt < ctx.blockMs) return;
      lastBlockAt = now;
      await advanceDeposits(ctx);
      await advanceWithdrawals(ctx);
    },
  };
}
