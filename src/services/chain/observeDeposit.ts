import { ApiError, invalidArgument } from '../../domain/errors.ts';
import { observeDeposit as observe } from '../../domain/flows/deposit.ts';
import { E18, MAX_LEDGER_AMOUNT_E18, parseScaled } from '../../domain/money.ts';
import { EXTERNAL_NETWORKS, MIN_DEPOSIT } from '../../domain/networks.ts';
import { newPublicId } from '../../domain/ids.ts';
import { retryOnUniqueRace } from '../../infra/databaseErrors.ts';
import type { ChainContext } from './context.ts';
import { depositExpectations } from './expectedDurations.ts';
import { depositColumns } from './flowRecord.ts';
import { publishFlow } from './publishFlow.ts';

/**
 * The (simulated) chain reports a transfer to a deposit address: the deposit flow starts,
 * or, for an asset the chain does not carry for us or below the minimum, ends at once with
 * its reason. Reported twice (same chain, transaction and log index), it is one flow.
 */
export async function observeDeposit(ctx: ChainContext, input: { chainId: number; address: string; asset: string; amount: string; txHash: string; logIndex?: number; fromAddress?: string }) {
  const network = EXTERNAL_NETWORKS.get(input.chainId);
  if (!network) throw invalidArgument('chainId', `network ${input.chainId} is not supported`, 'unknown-network');
  const target = await ctx.db.depositAddress.findUnique({ where: { chainId_address: { chainId: input.chainId, address: input.address } }, include: { account: { select: { id: true, rootAccountId: true, smartAccountAddress: true } } } });
  if (!target) throw new ApiError('not-found', 'no deposit address is assigned there', { code: 'DEPOSIT_ADDRESS_NOT_FOUND' });
  const amountE18 = parseScaled(input.amount, E18, 'amount', { max: MAX_LEDGER_AMOUNT_E18 });
  const carried = network.assets.find((a) => a.symbol === input.asset.toUpperCase());
  const listed = carried ? ctx.markets.asset(carried.symbol) : undefined;
  const minimum = carried ? parseScaled(MIN_DEPOSIT[carried.symbol] ?? '0', E18, 'amount', { allowZero: true, max: MAX_LEDGER_AMOUNT_E18 }) : 0n;
  const now = ctx.clock.now().getTime();
  const flow = observe({ supported: listed !== undefined, belowMinimum: amountE18 < minimum, requiredConfirmations: network.depositConfirmations, nowMs: now });
  const expected = await depositExpectations(ctx, network.registryChainId, network.depositConfirmations);
  const occurrence = String(input.logIndex ?? 0);
  const key = { flowKind: 'DEPOSIT' as const, serviceChainId: network.registryChainId, sourceTxHash: input.txHash, txOccurrenceIndex: occurrence };
  let created = false;
  const row = await retryOnUniqueRace(
    async () =>
      (await ctx.db.lifecycleFlow.findUnique({ where: { flowKind_serviceChainId_sourceTxHash_txOccurrenceIndex: key } })) ??
      ((created = true), ctx.db.lifecycleFlow.create({
        data: {
          ...key,
          ...depositColumns(flow, expected),
          publicId: newPublicId(),
          ownerAccountId: target.accountId,
          rootAccountId: target.account.rootAccountId ?? target.accountId,
          smartAccountAddress: target.account.smartAccountAddress,
          unifiedAssetId: listed?.unifiedAssetId ?? null,
          zippedAssetId: carried?.zippedAssetId ?? null,
          amountE18: amountE18.toString(),
          sourceDomain: 'EXTERNAL_CHAIN',
          destinationDomain: 'FUNDING',
          sourceAddress: input.fromAddress ?? null,
          destinationAddress: target.address,
          latestTxRef: input.txHash,
          latestLifecycleSource: 'INDEXER',
          startedAt: new Date(now),
          depositAddressId: target.id,
        },
      })),
  );
  if (created) await publishFlow(ctx, row);
  return row;
}
