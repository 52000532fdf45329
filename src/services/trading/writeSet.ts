import type { ChildOrderKind, FlowDomain, FlowKind, FlowState, FlowStep, LifecycleReason, LifecycleSource, WithdrawAction, WithdrawAuthorization, WithdrawIntentStatus, DeadManSwitchStatus, FeeAsset, LedgerAccount, OrderOriginScope, SideScope, TriggerCancelReason, TriggerDirection, TriggerEventType, TriggerFailureReason, TriggerStatus, TriggerType, OrderCloseReason, OrderStatus, Side, StpMode, TimeInForce, TransferCode, TransferSideKind, OrderType } from '../../generated/prisma/client.ts';

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
  /** How the order came to be: directly, or as a child of a trigger. */
  originScope: OrderOriginScope;
  originTriggerId: bigint | null;
  originTriggerType: TriggerType | null;
  childSeq: number;
}

/** A trigger (spec 2.8) as the engine keeps it: the columns the projection writes. */
export interface TriggerRow {
  id: bigint;
  publicId: string;
  accountId: bigint;
  /** The order an attached-risk leg protects; null for a standalone trigger. */
  parentOrderId: bigint | null;
  clientTriggerId: string | null;
  symbolId: number;
  triggerType: TriggerType;
  status: TriggerStatus;
  side: 'BUY' | 'SELL';
  qty: bigint;
  feeAsset: FeeAsset;
  stpMode: StpMode;
  cancelReason: TriggerCancelReason | null;
  failureReason: TriggerFailureReason | null;
  triggerDirection: TriggerDirection;
  triggerPrice: bigint;
  childKind: ChildOrderKind;
  childLimitPrice: bigint | null;
  childPostOnly: boolean;
  maxSlippageTicks: number | null;
  maxSlippageBps: number | null;
  cumFilledQty: bigint;
  lastChildSeq: number;
  firePx: bigint | null;
  version: number;
  heldE18: bigint;
  acceptedAtTsNs: bigint;
  createdAt: Date;
  updatedAt: Date;
  armedAt: Date | null;
  completedAt: Date | null;
  terminalAt: Date | null;
  /** Strategy parameters as JSON text (trailing: activation and distance). */
  params: string;
  /** Runtime state as JSON text (trailing: active, peak or trough, threshold). */
  state: string;
}

/** One transition of a trigger (spec 2.9): appended, never changed. */
export interface TriggerEventRow {
  triggerId: bigint;
  eventType: TriggerEventType;
  triggerType: TriggerType;
  accountId: bigint;
  symbolId: number;
  childOrderId: bigint | null;
  childSeq: number;
  firePx: bigint | null;
  cancelReason: TriggerCancelReason | null;
  failureReason: TriggerFailureReason | null;
  tsNs: bigint;
  /** Public ids, journaled for the event stream (not columns of the table). */
  triggerPublicId: string;
  accountPublicId: string;
  childOrderPublicId: string | null;
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
  /** The trigger that executes the leg (its state is the trigger's). */
  triggerId: bigint | null;
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

/**
 * A price level's total quantity (0: the level is gone) after one change of its book,
 * under the book's delta sequence: the rows of one sequence are one order-book delta.
 */
export interface BookLevelRow {
  symbolId: number;
  sequence: bigint;
  side: Side;
  price: bigint;
  qty: bigint;
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
  /** The chain flow (deposit, withdrawal) this transfer belongs to. */
  flowId: bigint | null;
}

export interface BalanceDelta {
  accountId: bigint;
  ledgerAccount: LedgerAccount;
  assetId: number;
  available: bigint;
  held: bigint;
}

/**
 * A balance as the group left it (after its last change in the group), under its account's
 * public id: what the balance stream sends. Journaled beside the deltas, which alone are
 * projected (a delta applies whatever the row held), so a stream event never needs a read.
 */
export interface BalanceAfterRow {
  accountId: bigint;
  accountPublicId: string;
  ledgerAccount: LedgerAccount;
  assetId: number;
  available: bigint;
  held: bigint;
}

/**
 * A dead-man switch after a change (spec 3): armed or refreshed, disabled, or fired.
 * `armedAt` and `lastFiredAtTsNs` are null when the change leaves them as they were.
 */
export interface SwitchRow {
  accountId: bigint;
  /** 0: every symbol. */
  symbolId: number;
  side: SideScope;
  status: DeadManSwitchStatus;
  timeoutSec: number;
  /** 0 when disabled. */
  expiresAtTsNs: bigint;
  requestId: string;
  armedAt: Date | null;
  lastFiredAtTsNs: bigint | null;
}

/**
 * A withdrawal accepted from Trading (spec 4.7): the intent row. Byte columns are lower-case
 * hex text here and in the journal.
 */
export interface WithdrawIntentRow {
  id: bigint;
  publicId: string;
  accountId: bigint;
  action: WithdrawAction;
  authorization: WithdrawAuthorization;
  apiKeyId: bigint | null;
  signerWallet: string | null;
  amount: bigint;
  fee: bigint;
  assetId: number;
  deadlineTsSec: bigint;
  destinationAddress: string | null;
  destinationChainId: number | null;
  destinationAccountId: bigint | null;
  idempotencyKey: string;
  nonce: bigint;
  payload: string;
  payloadHash: string;
  payloadSignature: string;
  status: WithdrawIntentStatus;
  failureReason: string | null;
  flowId: bigint;
  createdAt: Date;
  updatedAt: Date;
}

/** A withdrawal's end: its new status, and why when it failed. */
export interface WithdrawStatusRow {
  id: bigint;
  status: WithdrawIntentStatus;
  failureReason: string | null;
  updatedAt: Date;
}

/**
 * A lifecycle flow (spec 2.12) as a job creates it: a withdrawal's with its hold, a
 * deposit's when the chain reports it. Every later step is a `FlowUpdateRow` of an engine
 * job too (flowJobs.ts); the JSON columns are JSON text.
 */
export interface FlowRow {
  id: bigint;
  publicId: string;
  ownerAccountId: bigint;
  rootAccountId: bigint;
  smartAccountAddress: string | null;
  flowKind: FlowKind;
  flowState: FlowState;
  currentStep: FlowStep;
  currentStepSequence: number;
  unifiedAssetId: number | null;
  zippedAssetId: number | null;
  amountE18: bigint;
  serviceChainId: number | null;
  sourceDomain: FlowDomain;
  destinationDomain: FlowDomain;
  sourceAddress: string | null;
  destinationAddress: string | null;
  latestLifecycleSource: LifecycleSource;
  lifecycleReason: LifecycleReason | null;
  isOpen: boolean;
  isTerminal: boolean;
  startedAt: Date;
  updatedAt: Date;
  lastActivityAt: Date;
  terminalAt: Date | null;
  estimatedCompletionAt: Date | null;
  currentProgress: string;
  progressTimeline: string;
  requestFee: string | null;
  /** Last in the journal's row: entries written before deposits were journaled lack them. */
  sourceTxHash: string | null;
  txOccurrenceIndex: string | null;
  latestTxRef: string | null;
  depositAddressId: bigint | null;
  version: bigint;
}

/** A flow's next state, set by the one job that checked it was at `version - 1` (flowJobs.ts). */
export type FlowUpdateRow = Pick<
  FlowRow,
  | 'id'
  | 'version'
  | 'flowState'
  | 'currentStep'
  | 'currentStepSequence'
  | 'lifecycleReason'
  | 'isOpen'
  | 'isTerminal'
  | 'updatedAt'
  | 'lastActivityAt'
  | 'terminalAt'
  | 'estimatedCompletionAt'
  | 'currentProgress'
  | 'progressTimeline'
  | 'requestFee'
  | 'latestLifecycleSource'
  | 'latestTxRef'
  | 'sourceTxHash'
  | 'txOccurrenceIndex'
>;

export const switchKey = (sw: { accountId: bigint; symbolId: number; side: string }) => `${sw.accountId}:${sw.symbolId}:${sw.side}`;

/** One published state of an order: a snapshot, never the live row the engine keeps changing. */
export type OrderVersion = OrderRow & { accountPublicId: string };

export type ClientOrderIdRow = { accountId: bigint; clientOrderId: string; orderId: bigint; createdAt: Date; expiresAt: Date };

export class WriteSet {
  /** Every order version of the group, in the order they happened: the stream events. */
  readonly versions: OrderVersion[] = [];
  /** The latest version of each order the group inserts, and of each it changes. */
  readonly newOrders = new Map<bigint, OrderVersion>();
  readonly changedOrders = new Map<bigint, OrderVersion>();
  readonly trades: TradeRow[] = [];
  /** Every change of a book's levels, in the order they happened: the order-book deltas. */
  readonly bookLevels: BookLevelRow[] = [];
  readonly riskLegs: RiskLegRow[] = [];
  readonly transfers: TransferRow[] = [];
  readonly balances = new Map<string, BalanceDelta>();
  /** Each user balance the group changed, as it left it, in the order first changed. */
  readonly balancesAfter = new Map<string, BalanceAfterRow>();
  readonly sequences = new Map<number, { lastMatchId: bigint; lastPrioritySeq: bigint; lastBookSeq: bigint }>();
  readonly clientOrderIds: ClientOrderIdRow[] = [];
  /** The latest state of each dead-man switch the group changed. */
  readonly switches = new Map<string, SwitchRow>();
  /** The latest version of each trigger the group created or changed. */
  readonly triggers = new Map<bigint, TriggerRow>();
  readonly triggerEvents: TriggerEventRow[] = [];
  /** Withdrawals accepted by the group, with their flows. */
  readonly withdrawIntents = new Map<bigint, WithdrawIntentRow>();
  readonly flows: FlowRow[] = [];
  /** The latest state of each earlier flow the group moved on. */
  readonly flowUpdates = new Map<bigint, FlowUpdateRow>();
  /** The end of each earlier withdrawal the group settled or released. */
  readonly withdrawStatuses = new Map<bigint, WithdrawStatusRow>();
  /** Where each reservation key stands in `clientOrderIds`, built by `absorb` only. */
  private reservationAt: Map<string, number> | undefined;

  /** Records a new version of an order: a snapshot of `row` as it is now. */
  order(row: OrderVersion, isNew = false): void {
    const version = { ...row };
    this.versions.push(version);
    this.keep(version, isNew);
  }

  private keep(version: OrderVersion, isNew: boolean): void {
    if (isNew || this.newOrders.has(version.id)) {
      this.newOrders.set(version.id, version);
      this.changedOrders.delete(version.id);
    } else {
      this.changedOrders.set(version.id, version);
    }
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

  /** Records a balance's state after a change: a copy, as the engine's keeps changing. */
  balanceAfter(row: BalanceAfterRow): void {
    this.balancesAfter.set(`${row.accountId}:${row.ledgerAccount}:${row.assetId}`, { ...row });
  }

  /** Records a trigger's new state: a snapshot, as for orders. */
  trigger(row: TriggerRow): void {
    this.triggers.set(row.id, { ...row });
  }

  /** Records a withdrawal's end: on its row when the group also inserts it, so no row is touched twice. */
  withdrawStatus(change: WithdrawStatusRow): void {
    const inserted = this.withdrawIntents.get(change.id);
    if (inserted) this.withdrawIntents.set(change.id, { ...inserted, status: change.status, failureReason: change.failureReason, updatedAt: change.updatedAt });
    else this.withdrawStatuses.set(change.id, { ...change });
  }

  /** Records a flow's next state: on its row when the group also inserts it, so no row is touched twice. */
  flowUpdate(change: FlowUpdateRow): void {
    const at = this.flows.findIndex((f) => f.id === change.id);
    if (at >= 0) this.flows[at] = { ...(this.flows[at] as FlowRow), ...change };
    else this.flowUpdates.set(change.id, { ...change });
  }

  /** Records a switch's new state; what it leaves as it was keeps the group's earlier value. */
  switch(row: SwitchRow): void {
    const key = switchKey(row);
    const earlier = this.switches.get(key);
    this.switches.set(key, { ...row, armedAt: row.armedAt ?? earlier?.armedAt ?? null, lastFiredAtTsNs: row.lastFiredAtTsNs ?? earlier?.lastFiredAtTsNs ?? null });
  }

  /**
   * Folds a later group into this one, so that several journal entries are projected by
   * one statement that still touches each row once: an order keeps its latest version,
   * balance deltas add up, a reused client order id keeps its latest reservation.
   */
  absorb(later: WriteSet): void {
    for (const v of later.versions) this.versions.push(v);
    for (const v of later.newOrders.values()) this.keep(v, true);
    for (const v of later.changedOrders.values()) this.keep(v, false);
    for (const t of later.trades) this.trades.push(t);
    for (const l of later.bookLevels) this.bookLevels.push(l);
    for (const r of later.riskLegs) this.riskLegs.push(r);
    for (const t of later.transfers) this.transfers.push(t);
    for (const d of later.balances.values()) this.balance(d.accountId, d.ledgerAccount, d.assetId, d.available, d.held);
    for (const b of later.balancesAfter.values()) this.balanceAfter(b);
    for (const [symbolId, s] of later.sequences) this.sequences.set(symbolId, s);
    for (const sw of later.switches.values()) this.switch(sw);
    for (const t of later.triggers.values()) this.triggers.set(t.id, t);
    for (const e of later.triggerEvents) this.triggerEvents.push(e);
    for (const w of later.withdrawIntents.values()) this.withdrawIntents.set(w.id, w);
    for (const f of later.flows) this.flows.push(f);
    for (const c of later.withdrawStatuses.values()) this.withdrawStatus(c);
    for (const u of later.flowUpdates.values()) this.flowUpdate(u);
    // A batch folds hundreds of entries: find a reused key by index, not by scanning.
    this.reservationAt ??= new Map(this.clientOrderIds.map((c, i) => [`${c.accountId}:${c.clientOrderId}`, i]));
    for (const c of later.clientOrderIds) {
      const key = `${c.accountId}:${c.clientOrderId}`;
      const i = this.reservationAt.get(key);
      if (i !== undefined) {
        this.clientOrderIds[i] = c;
      } else {
        this.reservationAt.set(key, this.clientOrderIds.length);
        this.clientOrderIds.push(c);
      }
    }
  }

  get isEmpty(): boolean {
    return (
      this.newOrders.size === 0 &&
      this.changedOrders.size === 0 &&
      this.trades.length === 0 &&
      this.transfers.length === 0 &&
      this.balances.size === 0 &&
      this.sequences.size === 0 &&
      this.clientOrderIds.length === 0 &&
      this.switches.size === 0 &&
      this.triggers.size === 0 &&
      this.triggerEvents.length === 0 &&
      this.withdrawIntents.size === 0 &&
      this.withdrawStatuses.size === 0 &&
      this.flows.length === 0 &&
      this.flowUpdates.size === 0
    );
  }
}
