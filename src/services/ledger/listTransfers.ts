import type { Caller } from '../../auth/caller.ts';
import type { LedgerAccount, Prisma } from '../../generated/prisma/client.ts';
import { requirePermission, resolveAccount } from '../access.ts';
import type { Asset } from '../markets.ts';
import { pageLimit, toPage } from '../pageTokens.ts';
import { assetOf, type LedgerContext } from './context.ts';
import { TRANSFERS_LIST_MAX } from './listTransfers.schema.ts';

/** GET /v1/transfers (spec 4.7): the account's legs, oldest first unless reversed. */
export async function listTransfers(ctx: LedgerContext, caller: Caller, input: { subaccountId?: string; ledger?: LedgerAccount; asset?: string; reversed?: boolean; limit?: number; pageToken?: string }) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId, 'subaccount_id');
  const asset = input.asset !== undefined ? assetOf(ctx, input.asset, 'asset') : undefined;
  const limit = pageLimit(input.limit, TRANSFERS_LIST_MAX);
  const reversed = input.reversed ?? false;
  const binding = {
    operation: 'listTransfers',
    caller: caller.rootPublicId,
    filters: { account: account.publicId, ledger: input.ledger ?? null, asset: asset?.unifiedAssetId ?? null, reversed },
  };
  const cursor = ctx.pageTokens.decode<{ ts: string; id: string }>(input.pageToken, binding, 'page_token');
  const cmp = reversed ? 'lt' : 'gt';
  const where: Prisma.LedgerTransferLegWhereInput = {
    accountId: account.id,
    ...(input.ledger ? { ledgerAccount: input.ledger } : {}),
    ...(asset ? { assetId: asset.unifiedAssetId } : {}),
    ...(cursor
      ? { OR: [{ timestampUs: { [cmp]: BigInt(cursor.ts) } }, { timestampUs: BigInt(cursor.ts), id: { [cmp]: BigInt(cursor.id) } }] }
      : {}),
  };
  const dir = reversed ? 'desc' : 'asc';
  await ctx.engine.readable(account.id);
  const rows = await ctx.db.ledgerTransferLeg.findMany({
    where,
    orderBy: [{ timestampUs: dir }, { id: dir }],
    take: limit + 1,
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, (r) => ({ ts: r.timestampUs.toString(), id: r.id.toString() }));
  // Legs carry no foreign keys (docs/scaling.md): their counterparties are looked up here.
  const sides = [...new Set(page.items.flatMap((r) => [r.sourceAccountId, r.destinationAccountId]).filter((id): id is bigint => id !== null))];
  const accounts = new Map(
    sides.length === 0
      ? []
      : (await ctx.db.account.findMany({ where: { id: { in: sides } }, select: { publicId: true, kind: true, rootAccountId: true, id: true } })).map((a) => [a.id, a]),
  );
  // Counterparties are named only when they are the caller's own accounts.
  const ownId = (id: bigint | null) => {
    const a = id === null ? undefined : accounts.get(id);
    return a !== undefined && a.kind !== 'SYSTEM' && (a.id === caller.rootAccountId || a.rootAccountId === caller.rootAccountId) ? a.publicId : '';
  };
  const flowIds = [...new Set(page.items.map((r) => r.flowId).filter((id): id is bigint => id !== null))];
  const flows = new Map(
    flowIds.length === 0
      ? []
      : (await ctx.db.lifecycleFlow.findMany({ where: { id: { in: flowIds } }, select: { id: true, publicId: true, sourceAddress: true, destinationAddress: true, serviceChainId: true, flowKind: true } })).map((f) => [f.id, f]),
  );
  return {
    transfers: page.items.map((r) => {
      const flow = r.flowId !== null ? flows.get(r.flowId) : undefined;
      return {
        leg: r,
        asset: ctx.markets.asset(r.assetId) as Asset,
        sourceAccountId: ownId(r.sourceAccountId),
        destinationAccountId: ownId(r.destinationAccountId),
        ...(flow ? { flow } : {}),
      };
    }),
    nextPageToken: page.nextPageToken,
  };
}
