import { ApiError } from '../../domain/errors.ts';
import { formatScaled } from '../../domain/money.ts';
import { EXTERNAL_NETWORKS, NETWORK_LIST } from '../../domain/networks.ts';
import type { AccountRef } from '../access.ts';
import type { ChainContext } from './context.ts';

/** The most blocks any network keeps a credited deposit locked. */
const LONGEST_LOCK_BLOCKS = Math.max(...NETWORK_LIST.map((n) => n.withdrawConfirmations - n.depositConfirmations));

/**
 * A deposit is credited at its network's deposit confirmations but may leave on chain only
 * at its withdraw confirmations (spec'd by peers as "unlock confirmations"): until then a
 * reorg could still take it back. The blocks between the two, at the chain's block
 * interval, are the time a credited deposit stays locked. The lock is the root's (funds
 * move freely between its accounts and ledgers): what the root's accounts hold in the
 * asset, less what is locked, must cover the withdrawal and its fee.
 */
export async function requireUnlockedFunds(ctx: ChainContext, account: AccountRef, assetId: number, total: bigint): Promise<void> {
  const now = ctx.clock.now().getTime();
  const longest = LONGEST_LOCK_BLOCKS * ctx.blockMs;
  const recent = await ctx.db.lifecycleFlow.findMany({
    where: { rootAccountId: account.rootAccountId, flowKind: 'DEPOSIT', flowState: 'COMPLETED', unifiedAssetId: assetId, terminalAt: { gt: new Date(now - longest) } },
    select: { amountE18: true, serviceChainId: true, terminalAt: true },
  });
  let locked = 0n;
  let unlocksAt = 0;
  for (const d of recent) {
    const network = EXTERNAL_NETWORKS.get(d.serviceChainId as number);
    if (!network) continue;
    const until = (d.terminalAt as Date).getTime() + (network.withdrawConfirmations - network.depositConfirmations) * ctx.blockMs;
    if (until <= now) continue;
    locked += BigInt(d.amountE18.toFixed(0));
    unlocksAt = Math.max(unlocksAt, until);
  }
  if (locked === 0n) return;
  const [row] = await ctx.db.$queryRaw<{ available: string | null }[]>`
    SELECT sum(b.available)::text AS available FROM "Balance" b JOIN "Account" a ON a.id = b."accountId"
    WHERE (a.id = ${account.rootAccountId} OR a."rootAccountId" = ${account.rootAccountId}) AND b."assetId" = ${assetId}`;
  const available = BigInt(row?.available ?? '0');
  if (available - locked >= total) return;
  throw new ApiError('invalid-argument', `${formatScaled(locked, 18)} of this asset comes from deposits not yet final on their chain; it can be withdrawn from ${new Date(unlocksAt).toISOString()}`, {
    code: 'DEPOSIT_NOT_FINAL',
    violations: [{ fieldPath: 'payload.amount', message: 'exceeds the funds whose deposits are final on chain', ruleId: 'deposit-not-final' }],
  });
}
