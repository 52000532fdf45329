import type { FeeAsset, LedgerAccount, OrderCloseReason, OrderStatus, Side, StpMode, TimeInForce, TransferCode, TransferSideKind, OrderType } from '../../generated/prisma/client.ts';

/**
 * Everything one batch of commands changed, written to PostgreSQL in one transaction
 * before any of those commands is acknowledged.
 */
export interface OrderRow {
  id: bigint;
  publicId: string;
  accountId: bigint;
  symbolId: number;
  clientOrderId: string | null;
  side: Side;
  orderType: OrderType;
  tif: TimeInForce;
  status: OrderStatus;
  isOpen: boolean;
  closeReason: OrderCloseReason | null;
  price: bigint;
  origQty: bigint;
  cumQty: bigint;
  leavesQty: bigint;
  inheritedCumQty: bigint;
  cumNotionalQ9: bigint;
  inheritedNotionalQ9: bigint;
  feeAsset: FeeAsset;
  postOnly: boolean;
  stpMode: StpMode;
  expireAt: Date | null;
  expireAtTsNs: bigint | null;
  createdAt: Date;
  acceptedAtTsNs: bigint;
  terminalAt: Date | null;
  lineageId: string;
  generation: number;
  replacesOrderId: bigint | null;
  marketClientRefPrice: bigint | null;
  marketMaxSlippageBps: number | null;
  marketMaxSlippageTicks: number | null;
  submittedMaxQuoteDebit: bigint | null;
  version: number;
  heldE18: bigint;
  prioritySeq: bigint;
  oco: boolean;
}

/** An attached-risk leg as submitted: stored now, armed and executed by the trigger engine later. */
export interface RiskLegRow {
  orderId: bigint;
  kind: 'STOP_LOSS' | 'TAKE_PROFIT' | 'TRAILING_STOP';
  triggerPrice: bigint | null;
  childKind: 'MARKET_IOC' | 'LIMIT';
  childLimitPrice: bigint | null;
  childPostOnly: boolean;
  activationPrice: bigint | null;
  maxSlippageTicks: number | null;
  maxSlippageBps: number | null;
  trailingDistanceTicks: bigint | null;
  trailingDistanceBps: number | null;
  status: 'PENDING';
}

export interface TradeRow {
  symbolId: number;
  matchId: bigint;
  orderId: bigint;
  accountId: bigint;
  lineageId: string;
  generation: number;
  side: Side;
  price: bigint;
  qty: bigint;
  isMaker: boolean;
  fee: bigint;
  feeAsset: FeeAsset;
  feeIsRebate: boolean;
  executedAt: Date;
  executedAtTsNs: bigint;
  transferId: bigint;
}

export interface LegRow {
  accountId: bigint;
  ledgerAccount: LedgerAccount;
  assetId: number;
  amount: bigint;
  isDebit: boolean;
  balanceAfter: bigint;
  transferCode: TransferCode;
  sourceAccountId: bigint | null;
  sourceKind: TransferSideKind | null;
  destinationAccountId: bigint | null;
  destinationKind: TransferSideKind | null;
}

export interface TransferRow {
  id: bigint;
  transferCode: TransferCode;
  timestampUs: bigint;
  symbolId: number | null;
  matchId: bigint | null;
  memo: string | null;
  legs: LegRow[];
}

export interface BalanceDelta {
  accountId: bigint;
  ledgerAccount: LedgerAccount;
  assetId: number;
  available: bigint;
  held: bigint;
}

export class WriteSet {
  readonly newOrders = new Map<bigint, OrderRow>();
  readonly changedOrders = new Map<bigint, OrderRow>();
  readonly trades: TradeRow[] = [];
  readonly riskLegs: RiskLegRow[] = [];
  readonly transfers: TransferRow[] = [];
  readonly balances = new Map<string, BalanceDelta>();
  readonly sequences = new Map<number, { lastMatchId: bigint; lastPrioritySeq: bigint; lastBookSeq: bigint }>();
  readonly clientOrderIds: { accountId: bigint; clientOrderId: string; orderId: bigint; createdAt: Date; expiresAt: Date }[] = [];

  /** Records an order's latest state (inserted if new in this batch, else updated). */
  order(row: OrderRow): void {
    if (this.newOrders.has(row.id)) this.newOrders.set(row.id, row);
    else this.changedOrders.set(row.id, row);
  }

  balance(accountId: bigint, ledgerAccount: LedgerAccount, assetId: number, available: bigint, held: bigint): void {
    const key = `${accountId}:${ledgerAccount}:${assetId}`;
    const d = this.balances.get(key);
    if (d) {
      d.available += available;
      d.held += held;
    } else {
      this.balances.set(key, { accountId, ledgerAccount, assetId, available, held });
    }
  }

  get isEmpty(): boolean {
    return (
      this.newOrders.size === 0 &&
      this.changedOrders.size === 0 &&
      this.trades.length === 0 &&
      this.transfers.length === 0 &&
      this.balances.size === 0
    );
  }
}
