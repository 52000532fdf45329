import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { marketOf, type TradingContext } from '../context.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import type { Market } from '../../markets.ts';
import { pageLimit, toPage } from '../../pageTokens.ts';

/** Spec 4.5 Get User Trades: the account's fills, newest first, with their ledger legs when asked. */
export async function getUserTrades(ctx: TradingContext, caller: Caller, input: { subaccountId?: string; symbol?: string; orderId?: string; lineageId?: string; throughGeneration?: number; afterMatchId?: bigint; side?: 'BUY' | 'SELL'; startTime?: bigint; endTime?: bigint; includeTransfers?: boolean; limit?: number; pageToken?: string }) {
  requirePermission(caller, 'READ');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  if (input.orderId !== undefined && input.lineageId !== undefined) throw invalidArgument('lineageId', 'cannot be combined with orderId', 'exclusive');
  if (input.throughGeneration !== undefined && input.lineageId === undefined) throw invalidArgument('throughGeneration', 'requires lineageId', 'requires');
  if (input.afterMatchId !== undefined && input.symbol === undefined) throw invalidArgument('afterMatchId', 'requires symbol', 'requires');
  const market = input.symbol !== undefined ? marketOf(ctx, input.symbol, 'symbol') : undefined;
  const limit = pageLimit(input.limit, 1000);
  const filters = { account: account.publicId, ...input, pageToken: undefined, limit: undefined };
  // The binding keeps the operation's former name: page tokens handed out before it was renamed stay valid.
  const binding = { operation: 'listTrades', caller: caller.rootPublicId, filters };
  const cursor = ctx.pageTokens.decode<{ ts: string; id: string }>(input.pageToken, binding);
  let orderDbId: bigint | undefined;
  await ctx.engine.readable(account.id);
  if (input.orderId !== undefined) {
    const o = await ctx.db.order.findFirst({ where: { publicId: input.orderId, accountId: account.id }, select: { id: true } });
    if (!o) return { trades: [], transfers: [], nextPageToken: '' };
    orderDbId = o.id;
  }
  const rows = await ctx.db.trade.findMany({
    where: {
      accountId: account.id,
      ...(market ? { symbolId: market.symbolId } : {}),
      ...(orderDbId !== undefined ? { orderId: orderDbId } : {}),
      ...(input.lineageId !== undefined ? { lineageId: input.lineageId, ...(input.throughGeneration !== undefined ? { generation: { lte: input.throughGeneration } } : {}) } : {}),
      ...(input.afterMatchId !== undefined ? { matchId: { gt: input.afterMatchId } } : {}),
      ...(input.side ? { side: input.side } : {}),
      ...(input.startTime !== undefined || input.endTime !== undefined ? { executedAtTsNs: { ...(input.startTime !== undefined ? { gte: input.startTime } : {}), ...(input.endTime !== undefined ? { lt: input.endTime } : {}) } } : {}),
      ...(cursor ? { OR: [{ executedAtTsNs: { lt: BigInt(cursor.ts) } }, { executedAtTsNs: BigInt(cursor.ts), id: { lt: BigInt(cursor.id) } }] } : {}),
    },
    orderBy: [{ executedAtTsNs: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, (r) => ({ ts: r.executedAtTsNs.toString(), id: r.id.toString() }));
  const transfers = input.includeTransfers && page.items.length > 0
    ? await ctx.db.ledgerTransferLeg.findMany({
        where: { accountId: account.id, transferId: { in: [...new Set(page.items.map((t) => t.transferId).filter((x): x is bigint => x !== null))] } },
        orderBy: { id: 'asc' },
      })
    : [];
  // Trades carry no foreign keys (docs/scaling.md): their orders' public ids are looked up here.
  const orderIds = [...new Set(page.items.map((t) => t.orderId))];
  const orders = new Map(
    orderIds.length === 0 ? [] : (await ctx.db.order.findMany({ where: { id: { in: orderIds } }, select: { id: true, publicId: true } })).map((o) => [o.id, o.publicId]),
  );
  const orderPublicId = (t: { id: bigint; orderId: bigint }) => {
    const id = orders.get(t.orderId);
    if (id === undefined) throw new Error(`trade ${t.id} references order ${t.orderId}, which does not exist (npm run db:check)`);
    return id;
  };
  return { trades: page.items.map((t) => ({ trade: t, symbol: (ctx.markets.marketById(t.symbolId) as Market).symbol, orderPublicId: orderPublicId(t) })), transfers, nextPageToken: page.nextPageToken };
}
