import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { observeDeposit as observe } from '../../domain/flows/deposit.ts';
import { E18, MAX_LEDGER_AMOUNT_E18, parseScaled } from '../../domain/money.ts';
import { EXTERNAL_NETWORKS, MIN_DEPOSIT } from '../../domain/networks.ts';
import { newPublicId } from '../../domain/ids.ts';
import { READ_AGAIN } from '../trading/index.ts';
import type { ChainContext } from './context.ts';
import { depositExpectations } from './expectedDurations.ts';
import { depositColumns } from './flowRecord.ts';
import { publishFlow } from './publishFlow.ts';

/**
 * The (simulated) chain reports a transfer to a deposit address: the deposit flow starts,
 * or, for an asset the chain does not carry for us or below the minimum, ends at once with
 * its reason, inserted by an engine job. Reported twice (same chain, transaction and log
 * index), even at once, it is one flow: the job finds the first.
 */
export async function observeDeposit(ctx: ChainContext, input: { chainId: number; address: string; asset: string; amount: string; txHash: string; logIndex?: number; fromAddress?: string }) {
  const network = EXTERNAL_NETWORKS.get(input.chainId);
  if (!network) throw invalidArgument('chainId', `network ${input.chainId} is not supported`, 'unknown-network');
  const target = await ctx.db.depositAddress.findUnique({ where: { chainId_address: { chainId: input.chainId, address: input.address } }, include: { account: { select: { id: true, rootAccountId: true, smartAccountAddress: true } } } });
  if (!target) throw errors.DEPOSIT_ADDRESS_NOT_FOUND('no deposit address is assigned there');
  const amountE18 = parseScaled(input.amount, E18, 'amount', { max: MAX_LEDGER_AMOUNT_E18 });
  const carried = network.assets.find((a) => a.symbol === input.asset.toUpperCase());
  const listed = carried ? ctx.markets.asset(carried.symbol) : undefined;
  const minimum = carried ? parseScaled(MIN_DEPOSIT[carried.symbol] ?? '0', E18, 'amount', { allowZero: true, max: MAX_LEDGER_AMOUNT_E18 }) : 0n;
  const now = ctx.clock.now().getTime();
  const flow = observe({ supported: listed !== undefined, belowMinimum: amountE18 < minimum, requiredConfirmations: network.depositConfirmations, nowMs: now });
  const expected = await depositExpectations(ctx, network.registryChainId, network.depositConfirmations);
  const occurrence = String(input.logIndex ?? 0);
  const key = { serviceChainId: network.registryChainId, sourceTxHash: input.txHash, txOccurrenceIndex: occurrence };
  const columns = depositColumns(flow, expected);
  const publicId = newPublicId();
  // Reported again while an earlier report is in flight: the engine's job, not the unique index, keeps one flow.
  const settled = async () => (await ctx.engine.flushed(), await ctx.engine.readable());
  for (;;) {
    const known = await ctx.engine.flowJob(
      [],
      (flows) => flows.prepareDeposit(key, settled),
      (job, prepared) => {
        const found = job.knownDeposit(key, prepared);
        if (found !== undefined) return found;
        job.insert({
          ...key,
          ...columns,
          id: prepared.flowId,
          publicId,
          flowKind: 'DEPOSIT',
          ownerAccountId: target.accountId,
          rootAccountId: target.account.rootAccountId ?? target.accountId,
          smartAccountAddress: target.account.smartAccountAddress,
          unifiedAssetId: listed?.unifiedAssetId ?? null,
          zippedAssetId: carried?.zippedAssetId ?? null,
          amountE18,
          sourceDomain: 'EXTERNAL_CHAIN',
          destinationDomain: 'FUNDING',
          sourceAddress: input.fromAddress ?? null,
          destinationAddress: target.address,
          latestTxRef: input.txHash,
          latestLifecycleSource: 'INDEXER',
          startedAt: new Date(now),
          currentProgress: JSON.stringify(columns.currentProgress),
          progressTimeline: JSON.stringify(columns.progressTimeline),
          requestFee: null,
          depositAddressId: target.id,
          version: 1n,
        });
        return undefined;
      },
    );
    if (known === READ_AGAIN) continue;
    await ctx.engine.readable();
    const row = await ctx.db.lifecycleFlow.findUniqueOrThrow({ where: { publicId: known ?? publicId } });
    if (known === undefined) await publishFlow(ctx, row);
    return row;
  }
}
