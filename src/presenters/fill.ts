import { z } from 'zod';
import { decimalToBigInt, formatScaled } from '../domain/money.ts';
import type { LedgerTransferLeg } from '../generated/prisma/client.ts';
import { FeeAsset, Side, TransferCode } from '../generated/prisma/enums.ts';
import type { Market } from '../services/markets.ts';
import type { TradeLike } from '../services/trading/index.ts';
import { ledgerAccount } from './balance.ts';
import { decimal18, int64String, nextPageToken, rfc3339 } from './scalars.ts';
import { lineageSchema } from './order.ts';

/** Spec 2.10: one fill of one of the caller's orders. */
export const fillSchema = z.strictObject({
  matchId: int64String.describe('Monotonic per symbol'),
  orderId: z.string(),
  lineage: lineageSchema,
  symbol: z.string(),
  side: z.enum(Side),
  price: z.string().describe('Decimal price (Q9)'),
  qty: z.string().describe('Decimal, the pair’s base_quantity_scale'),
  isMaker: z.boolean(),
  fee: decimal18.describe('Magnitude in feeAsset, 18 decimals'),
  feeAsset: z.enum(FeeAsset),
  feeIsRebate: z.boolean(),
  referralShare: decimal18.describe('Magnitude in feeAsset, 18 decimals'),
  executedAt: rfc3339,
});

export type FillJson = z.infer<typeof fillSchema>;

export function presentFill(t: TradeLike, market: Market, orderPublicId: string): FillJson {
  return {
    matchId: t.matchId.toString(),
    orderId: orderPublicId,
    lineage: { generation: t.generation, id: t.lineageId },
    symbol: market.symbol,
    side: t.side,
    price: formatScaled(t.price, 9),
    qty: formatScaled(t.qty, market.baseQuantityScale),
    isMaker: t.isMaker,
    fee: formatScaled(decimalToBigInt(t.fee), 18),
    feeAsset: t.feeAsset,
    feeIsRebate: t.feeIsRebate,
    referralShare: formatScaled(decimalToBigInt(t.referralShare ?? 0n), 18),
    executedAt: t.executedAt.toISOString(),
  };
}

/** Spec 2.10: one ledger leg of a fill's settlement. */
export const fillLegSchema = z.strictObject({
  matchId: int64String.describe('"0" for a leg of no match'),
  symbolId: z.number().int().describe('0 for a leg of no market'),
  account: ledgerAccount,
  asset: z.string().describe('Unified asset id'),
  isDebit: z.boolean(),
  transferCode: z.enum(TransferCode),
  txId: z.string(),
  timestamp: int64String.describe('Epoch microseconds'),
});

export function presentFillLeg(l: LedgerTransferLeg): z.infer<typeof fillLegSchema> {
  return {
    matchId: (l.matchId ?? 0n).toString(),
    symbolId: l.symbolId ?? 0,
    account: l.ledgerAccount,
    asset: String(l.assetId),
    isDebit: l.isDebit,
    transferCode: l.transferCode,
    txId: l.txId ?? '',
    timestamp: l.timestampUs.toString(),
  };
}

/** Spec 4.5 Get User Trades; `transfers` is empty unless includeTransfers. */
export const userTradesSchema = z.strictObject({ trades: z.array(fillSchema), transfers: z.array(fillLegSchema), nextPageToken });
