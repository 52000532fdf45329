import { createHash } from 'node:crypto';
import { verifyMessage } from 'viem';
import type { Caller } from '../../auth/caller.ts';
import { verifyEd25519 } from '../../auth/signature.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { submitWithdraw, VALIDATORS } from '../../domain/flows/withdraw.ts';
import { newPublicId } from '../../domain/ids.ts';
import { E18, MAX_LEDGER_AMOUNT_E18, parseScaled } from '../../domain/money.ts';
import { MIN_DEPOSIT } from '../../domain/networks.ts';
import { authorizationMessage, checkDeadline, decodePayload, type WithdrawPayload } from '../../domain/withdrawPayload.ts';
import { requirePermission, resolveAccount, type AccountRef } from '../access.ts';
import type { ChainContext } from './context.ts';
import { resolveDestination, type Destination } from './destinations.ts';
import { withdrawExpectations } from './expectedDurations.ts';
import { u128, withdrawColumns } from './flowRecord.ts';
import { publishFlow } from './publishFlow.ts';

export interface TradingWithdrawInput {
  payload: Uint8Array;
  payloadSignature: Uint8Array;
  /** The `:wallet` variant: the EVM address that signed the authorization message. */
  signerWallet?: string;
  subaccountId?: string;
}

/**
 * Spec 4.7 Create Trading Withdraw and its `:wallet` variant: one withdrawal from the
 * account's TRADING bucket, to an external address or to a Funding account. Checked in this
 * order, each refusal changing nothing: permission and rate limit, the payload's form, its
 * signature, the deadline, the asset and destination (and the allow-list). Then the engine
 * holds the amount and fee (refusing what a deposit not yet final must keep on the account,
 * DEPOSIT_NOT_FINAL: see depositLocks.ts) and records the intent and its flow in one journal entry, or
 * answers the intent an earlier identical request created.
 */
export async function createTradingWithdraw(ctx: ChainContext, caller: Caller, variant: 'API_KEY' | 'WALLET', input: TradingWithdrawInput): Promise<{ intentId: string }> {
  requirePermission(caller, 'WITHDRAW');
  if (variant === 'API_KEY' && caller.kind !== 'apiKey') {
    throw errors.API_KEY_REQUIRED('Create Trading Withdraw is signed by the calling API key; a wallet session uses POST /v1/chain/trading-withdraws:wallet');
  }
  const account = await resolveAccount(ctx.db, caller, variant === 'WALLET' ? input.subaccountId : undefined);
  await ctx.limiter.admit('withdraw.submit', { caller, account });

  const payload = decodePayload(input.payload);
  const payloadHash = createHash('sha256').update(input.payload).digest('hex');
  const asset = ctx.markets.asset(payload.assetId);
  if (!asset) throw invalidArgument('payload.assetId', `asset ${payload.assetId} is not listed`, 'unknown-asset', errors.UNKNOWN_ASSET);
  const destination = await resolveDestination(ctx, account, payload, asset.symbol);

  if (variant === 'API_KEY') await verifyKeySignature(ctx, caller, input);
  else await verifyWalletSignature(ctx, account, payload, { symbol: asset.symbol, label: destination.label, payloadHash }, input);
  checkDeadline(payload.deadlineTsSec, ctx.clock.now().getTime());

  const amount = BigInt(payload.amount);
  const fee = destination.kind === 'external' ? parseScaled(destination.networkAsset.withdrawFee, E18, 'withdrawFee', { allowZero: true, max: MAX_LEDGER_AMOUNT_E18 }) : 0n;
  if (destination.kind === 'external') checkExternalAmount(amount, destination.networkAsset);

  const now = ctx.clock.now();
  const kind = destination.kind === 'external' ? 'WITHDRAW_TO_EXTERNAL_CHAIN' : 'WITHDRAW_TO_FUNDING';
  const requiredConfirmations = destination.kind === 'external' ? destination.network.depositConfirmations : 0;
  const flow = submitWithdraw({ kind, requiredConfirmations, nowMs: now.getTime() });
  const expected = destination.kind === 'external' ? await withdrawExpectations(ctx, destination.network.registryChainId, requiredConfirmations) : () => 0;
  const zippedAssetId = destination.kind === 'external' ? destination.networkAsset.zippedAssetId : null;
  const feeJson = { amountE18: u128(fee), assetIds: { zippedAssetId: zippedAssetId ?? 0, unifiedAssetId: asset.unifiedAssetId }, recipientAddress: '' };
  const validators = destination.kind === 'external' ? VALIDATORS : { validatorCount: 0, requiredApprovals: 0, requiredRejections: 0 };
  const columns = withdrawColumns(flow, expected, feeJson, validators);
  const source = await ctx.db.account.findUniqueOrThrow({ where: { id: account.id }, select: { smartAccountAddress: true } });
  const hold = { accountId: account.id, ledgerAccount: 'TRADING' as const, assetId: asset.unifiedAssetId };
  const to = destination.kind === 'funding' ? { accountId: destination.accountId, ledgerAccount: 'FUNDING' as const, assetId: asset.unifiedAssetId } : undefined;

  // The flow's id is the intent's: the intentId a client is given is the flowId it follows.
  const publicId = newPublicId();
  const { intentId, replayed } = await ctx.engine.submitWithdrawal(
    {
      publicId,
      accountId: account.id,
      action: payload.action,
      authorization: variant,
      apiKeyId: caller.kind === 'apiKey' ? caller.keyDbId : null,
      signerWallet: input.signerWallet?.toLowerCase() ?? null,
      amount,
      fee,
      assetId: asset.unifiedAssetId,
      deadlineTsSec: BigInt(payload.deadlineTsSec),
      destinationAddress: destination.address,
      destinationChainId: destination.kind === 'external' ? destination.network.registryChainId : null,
      destinationAccountId: destination.kind === 'funding' ? destination.accountId : null,
      idempotencyKey: payload.idempotencyKey,
      nonce: BigInt(payload.nonce),
      payload: Buffer.from(input.payload).toString('hex'),
      payloadHash,
      payloadSignature: Buffer.from(input.payloadSignature).toString('hex'),
      status: destination.kind === 'funding' ? 'COMPLETED' : 'ACCEPTED',
      failureReason: null,
      createdAt: now,
      updatedAt: now,
      flow: {
        publicId,
        ownerAccountId: account.id,
        rootAccountId: account.rootAccountId,
        smartAccountAddress: source.smartAccountAddress,
        flowKind: kind,
        flowState: columns.flowState,
        currentStep: columns.currentStep,
        currentStepSequence: columns.currentStepSequence,
        unifiedAssetId: asset.unifiedAssetId,
        zippedAssetId,
        amountE18: amount,
        serviceChainId: destination.kind === 'external' ? destination.network.registryChainId : null,
        sourceDomain: 'TRADING',
        destinationDomain: destination.kind === 'external' ? 'EXTERNAL_CHAIN' : 'FUNDING',
        sourceAddress: source.smartAccountAddress,
        destinationAddress: destination.address,
        latestLifecycleSource: 'USER',
        lifecycleReason: null,
        isOpen: columns.isOpen,
        isTerminal: columns.isTerminal,
        startedAt: now,
        updatedAt: columns.updatedAt,
        lastActivityAt: columns.lastActivityAt,
        terminalAt: columns.terminalAt,
        estimatedCompletionAt: columns.estimatedCompletionAt,
        currentProgress: JSON.stringify(columns.currentProgress),
        progressTimeline: JSON.stringify(columns.progressTimeline),
        requestFee: JSON.stringify(columns.requestFee),
        sourceTxHash: null,
        txOccurrenceIndex: null,
        latestTxRef: null,
        depositAddressId: null,
        version: 1n,
      },
    },
    {
      hold,
      refs: to ? [to] : [],
      ...(to
        ? {
            // To Funding moves at once, in the entry that accepts it: nothing is left to wait for.
            settle: (job, flowId) => job.post({ code: 'WITHDRAW', flowId }, [{ ref: hold, amount }], [{ ref: to, amount }]),
          }
        : {}),
    },
  );
  if (!replayed) {
    await ctx.engine.readable();
    const row = await ctx.db.withdrawIntent.findUnique({ where: { publicId: intentId }, select: { flow: true } });
    if (row?.flow) await publishFlow(ctx, row.flow);
  }
  return { intentId };
}

/** The API-key variant: the calling key's Ed25519 signature of the payload bytes. */
async function verifyKeySignature(ctx: ChainContext, caller: Caller, input: TradingWithdrawInput): Promise<void> {
  if (caller.kind !== 'apiKey') return;
  if (input.payloadSignature.length !== 64) throw invalidArgument('payloadSignature', 'must be a 64-byte Ed25519 signature', 'bytes-length');
  const key = await ctx.db.apiKey.findUniqueOrThrow({ where: { id: caller.keyDbId }, select: { publicKeyEd25519: true } });
  if (!verifyEd25519(key.publicKeyEd25519, input.payload, input.payloadSignature)) {
    throw errors.INVALID_PAYLOAD_SIGNATURE('payloadSignature is not the calling API key’s Ed25519 signature of the payload bytes');
  }
}

/**
 * The wallet variant: `signerWallet` must be the wallet of the account's root, and its
 * EIP-191 signature must be of the authorization message the payload derives.
 */
async function verifyWalletSignature(ctx: ChainContext, account: AccountRef, payload: WithdrawPayload, shown: { symbol: string; label: string; payloadHash: string }, input: TradingWithdrawInput): Promise<void> {
  const wallet = input.signerWallet;
  if (!wallet || !/^0x[0-9a-fA-F]{40}$/.test(wallet)) throw invalidArgument('signerWallet', 'must be the 0x address of the wallet that signed', 'evm-address');
  if (input.payloadSignature.length !== 65) throw invalidArgument('payloadSignature', 'must be a 65-byte EIP-191 signature', 'evm-signature');
  const root = await ctx.db.account.findUniqueOrThrow({ where: { id: account.rootAccountId }, select: { walletAddress: true } });
  if (root.walletAddress !== wallet.toLowerCase()) {
    throw errors.WALLET_NOT_ACCOUNT_OWNER('signerWallet is not the wallet of the account');
  }
  const message = authorizationMessage({ domain: ctx.authorizationDomain, accountId: account.publicId, payload, assetSymbol: shown.symbol, destinationLabel: shown.label, payloadSha256Hex: shown.payloadHash });
  const valid = await verifyMessage({ address: wallet as `0x${string}`, message, signature: `0x${Buffer.from(input.payloadSignature).toString('hex')}` }).catch(() => false);
  if (!valid) throw errors.INVALID_WALLET_SIGNATURE('payloadSignature is not signerWallet’s EIP-191 signature of the authorization message');
}

/** An on-chain amount: at least the minimum, and no finer than the chain's token carries. */
function checkExternalAmount(amount: bigint, networkAsset: Extract<Destination, { kind: 'external' }>['networkAsset']): void {
  const step = 10n ** BigInt(18 - Math.min(networkAsset.nativeDecimals, 18));
  if (amount % step !== 0n) {
    throw invalidArgument('payload.amount', `has more precision than ${networkAsset.symbol} carries on this network (${networkAsset.nativeDecimals} decimals)`, 'precision', errors.AMOUNT_PRECISION);
  }
  const minimum = parseScaled(MIN_DEPOSIT[networkAsset.symbol] ?? '0', E18, 'minimum', { allowZero: true, max: MAX_LEDGER_AMOUNT_E18 });
  if (amount < minimum) throw invalidArgument('payload.amount', `is below the minimum withdrawal of ${MIN_DEPOSIT[networkAsset.symbol]} ${networkAsset.symbol}`, 'minimum', errors.AMOUNT_BELOW_MINIMUM);
}
