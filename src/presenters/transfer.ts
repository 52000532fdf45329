import { z } from 'zod';
import { decimalToBigInt } from '../domain/money.ts';
import type { LedgerTransferLeg } from '../generated/prisma/client.ts';
import { TransferCode, TransferSideKind } from '../generated/prisma/enums.ts';
import { ledgerAccount } from './balance.ts';
import { decimal18, e18, int64String, nextPageToken } from './scalars.ts';

/** A stored leg with its counterparties' public ids (empty unless the caller's own accounts). */
export interface TransferLegView {
  leg: LedgerTransferLeg;
  sourceAccountId: string;
  destinationAccountId: string;
  /** The chain flow the transfer belongs to: its public id, and the external side it moved from or to. */
  flow?: { publicId: string; sourceAddress: string | null; destinationAddress: string | null; serviceChainId: number | null; flowKind: string };
}

const partySchema = z.strictObject({
  accountId: z.string().describe('Empty unless it is one of the caller’s own accounts'),
  address: z.string().describe('Empty when none'),
  chainId: z.number().int().describe('Registered external network id; 0 when none'),
  kind: z.enum(TransferSideKind),
});

/** Spec 2.11. */
export const transferSchema = z.strictObject({
  account: ledgerAccount,
  amount: decimal18,
  balanceAfter: decimal18,
  asset: z.string().describe('Unified asset id'),
  isDebit: z.boolean(),
  linkId: int64String,
  flowId: z.string().describe('Public id of the chain flow that moved it; empty when none'),
  transferCode: z.enum(TransferCode),
  timestamp: int64String.describe('Epoch microseconds'),
  source: partySchema,
  destination: partySchema,
});

export const transfersSchema = z.strictObject({ transfers: z.array(transferSchema), nextPageToken });

export function presentTransfer({ leg, sourceAccountId, destinationAccountId, flow }: TransferLegView): z.infer<typeof transferSchema> {
  // A deposit comes from an external address, a withdrawal goes to one.
  const external = (kind: string | null, address: string | null) => (kind === 'EXTERNAL_ADDRESS' && flow ? { address: address ?? '', chainId: flow.serviceChainId ?? 0 } : {});
  return {
    account: leg.ledgerAccount,
    amount: e18(decimalToBigInt(leg.amount)),
    balanceAfter: e18(decimalToBigInt(leg.balanceAfter)),
    asset: String(leg.assetId),
    isDebit: leg.isDebit,
    linkId: leg.transferId.toString(),
    flowId: flow?.publicId ?? '',
    transferCode: leg.transferCode,
    timestamp: leg.timestampUs.toString(),
    source: { accountId: sourceAccountId, address: leg.sourceAddress ?? '', chainId: leg.sourceChainId ?? 0, kind: leg.sourceKind ?? 'SYSTEM', ...external(leg.sourceKind, flow?.sourceAddress ?? null) },
    destination: { accountId: destinationAccountId, address: leg.destinationAddress ?? '', chainId: leg.destinationChainId ?? 0, kind: leg.destinationKind ?? 'SYSTEM', ...external(leg.destinationKind, flow?.destinationAddress ?? null) },
  };
}

/** POST /v1/transfers/internal: the transfer's id and when it was booked. */
export const internalTransferSchema = z.strictObject({ linkId: int64String, timestamp: int64String.describe('Epoch microseconds') });

export function presentInternalTransfer(r: { linkId: bigint; timestampUs: bigint }): z.infer<typeof internalTransferSchema> {
  return { linkId: r.linkId.toString(), timestamp: r.timestampUs.toString() };
}
