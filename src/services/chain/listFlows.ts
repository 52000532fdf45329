import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { normaliseEvmAddress } from '../../domain/networks.ts';
import type { FlowKind, FlowState, Prisma } from '../../generated/prisma/client.ts';
import { requirePermission, resolveAccount } from '../access.ts';
import { pageLimit, toPage } from '../pageTokens.ts';
import type { ChainContext } from './context.ts';
import { flowView } from './flowView.ts';

/** The owner's public id, which every view of a flow names. */
export const OWNER = { ownerAccount: { select: { publicId: true } } } as const satisfies Prisma.LifecycleFlowInclude;

const ORDER_FIELD = { LAST_ACTIVITY: 'lastActivityAt', STARTED: 'startedAt', UPDATED: 'updatedAt' } as const;

export interface ListFlowsInput {
  flowKind?: FlowKind;
  flowState?: FlowState;
  scope?: 'OPEN' | 'TERMINAL' | 'ALL';
  orderBy?: keyof typeof ORDER_FIELD;
  sort?: 'NEWEST' | 'OLDEST';
  ownerAccountId?: string;
  serviceChainIds?: number[];
  unifiedAssetIds?: number[];
  zippedAssetIds?: number[];
  txRef?: string;
  /** One flow by its public id (a withdrawal's `intentId` is its flow's id). */
  flowId?: string;
  /** The smart-account address selector (the spec leaves its name open): flows of the account with that address. */
  smartAccountAddress?: string;
  limit?: number;
  pageToken?: string;
}

/**
 * The flows a caller may see: its root's, or its own subaccount's for a scoped key;
 * `ownerAccountId` narrows to one account it may see.
 */
export async function visibleFlows(ctx: ChainContext, caller: Caller, ownerAccountId?: string) {
  requirePermission(caller, 'READ');
  const owner = ownerAccountId !== undefined ? await resolveAccount(ctx.db, caller, ownerAccountId === caller.rootPublicId ? undefined : ownerAccountId, 'ownerAccountId') : undefined;
  const scoped = owner ?? (caller.kind === 'apiKey' && caller.subaccountId !== undefined ? await resolveAccount(ctx.db, caller, undefined) : undefined);
  const visible: Prisma.LifecycleFlowWhereInput = scoped ? { ownerAccountId: scoped.id } : { rootAccountId: caller.rootAccountId };
  return { scoped, visible };
}

/**
 * Spec 4.7 List Flows: the flows the caller may see (its root's, or its own subaccount's
 * for a scoped key; `ownerAccountId` narrows to one of them), filtered, newest or oldest
 * first by the chosen time, keyset paged with cursors bound to every filter. `include` adds
 * the relations a GraphQL selection reads (Pothos' query for the Flow type), read with the
 * page; the rows are answered too.
 */
export async function listFlows(ctx: ChainContext, caller: Caller, input: ListFlowsInput, include: Prisma.LifecycleFlowInclude = {}) {
  for (const key of ['serviceChainIds', 'unifiedAssetIds', 'zippedAssetIds'] as const) {
    if ((input[key]?.length ?? 0) > 100) throw invalidArgument(key, 'at most 100 unique values', 'max-items');
  }
  const { scoped, visible } = await visibleFlows(ctx, caller, input.ownerAccountId);
  const field = ORDER_FIELD[input.orderBy ?? 'LAST_ACTIVITY'];
  const newest = (input.sort ?? 'NEWEST') === 'NEWEST';
  const limit = pageLimit(input.limit, 500);
  const smart = input.smartAccountAddress !== undefined ? normaliseEvmAddress(input.smartAccountAddress, 'smartAccountAddress') : null;
  const sorted = (v?: number[]) => (v ? [...new Set(v)].sort((a, b) => a - b) : null);
  const filters = {
    owner: scoped?.publicId ?? null,
    flowKind: input.flowKind ?? null,
    flowState: input.flowState ?? null,
    scope: input.scope ?? 'ALL',
    orderBy: input.orderBy ?? 'LAST_ACTIVITY',
    sort: input.sort ?? 'NEWEST',
    chains: sorted(input.serviceChainIds),
    unified: sorted(input.unifiedAssetIds),
    zipped: sorted(input.zippedAssetIds),
    txRef: input.txRef ?? null,
    smart,
    flowId: input.flowId ?? null,
  };
  const binding = { operation: 'listFlows', caller: caller.rootPublicId, filters };
  const cursor = ctx.pageTokens.decode<{ at: string; id: string }>(input.pageToken, binding);
  const cmp = newest ? 'lt' : 'gt';
  const where: Prisma.LifecycleFlowWhereInput = {
    ...visible,
    ...(input.flowId !== undefined ? { publicId: input.flowId } : {}),
    ...(input.flowKind ? { flowKind: input.flowKind } : {}),
    ...(input.flowState ? { flowState: input.flowState } : {}),
    ...(input.scope === 'OPEN' ? { isOpen: true } : input.scope === 'TERMINAL' ? { isTerminal: true } : {}),
    ...(filters.chains ? { serviceChainId: { in: filters.chains } } : {}),
    ...(filters.unified ? { unifiedAssetId: { in: filters.unified } } : {}),
    ...(filters.zipped ? { zippedAssetId: { in: filters.zipped } } : {}),
    ...(smart ? { ownerAccount: { smartAccountAddress: smart } } : {}),
    ...(input.txRef ? { OR: [{ sourceTxHash: input.txRef }, { latestTxRef: input.txRef }] } : {}),
    ...(cursor ? { AND: [{ OR: [{ [field]: { [cmp]: new Date(cursor.at) } }, { [field]: new Date(cursor.at), id: { [cmp]: BigInt(cursor.id) } }] }] } : {}),
  };
  const rows = await ctx.db.lifecycleFlow.findMany({
    where,
    orderBy: [{ [field]: newest ? 'desc' : 'asc' }, { id: newest ? 'desc' : 'asc' }],
    take: limit + 1,
    include: { ...include, ...OWNER },
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, (r) => ({ at: (r[field] as Date).toISOString(), id: r.id.toString() }));
  return { flows: page.items.map((f) => flowView(f, f.ownerAccount.publicId)), rows: page.items, nextPageToken: page.nextPageToken };
}
