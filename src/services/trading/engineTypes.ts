import type { Logger } from 'pino';
import type { Depth } from '../../domain/matching/index.ts';
import type { OrderCloseReason } from '../../generated/prisma/client.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { SqlQueryable } from '../../infra/migrations.ts';
import type { AccountRef } from '../access.ts';
import type { Market, MarketCatalog } from '../markets.ts';
import type { TopicBus } from '../topicBus.ts';
import type { BalanceRef, LegSpec } from './balances.ts';
import type { MonotonicIds } from './ids.ts';
import type { EngineOwner } from './ownership.ts';
import type { TradingTopics } from './streams.ts';
import type { WithdrawHold } from './withdrawals.ts';
import type { OrderVersion, SwitchRow, TransferRow, TriggerRow } from './writeSet.ts';

export const CLIENT_ORDER_ID_RETENTION_MS = 24 * 3600 * 1000;
/** Journal entries are kept this long once projected: the window a stream can resume in. */
export const JOURNAL_RETENTION_MS = 24 * 3600 * 1000;
/** Open orders one trading account (root or subaccount) may keep: the spec's largest open-orders page, so one read lists them all. */
export const MAX_OPEN_ORDERS_PER_ACCOUNT = 1000;
/**
 * Live standalone triggers one trading account may keep by default (docs/scaling.md);
 * attached legs are not counted, being bounded by the open orders they protect.
 */
export const MAX_LIVE_TRIGGERS_PER_ACCOUNT = 200;
/** Journal entries a resume reads and decodes at once before it lets other work run (docs/scaling.md). */
export const RESUME_PAGE_ENTRIES = 100;

/** Why a cancel the account asked for closed its orders. */
export type UserCancel = Extract<OrderCloseReason, 'USER_CANCELED' | 'CANCEL_ALL' | 'DEAD_MAN_SWITCH'>;

/** Whose order it is: all a placement needs of the account. */
export type Owner = Pick<AccountRef, 'id' | 'publicId'>;

/** A read of ended triggers' client ids from the tables, in flight (Engine.holdEndedTriggerIds). */
export interface EndedIdsRead {
  epoch: number;
  release(): void;
}

/** What an accepted order answers (spec 4.5 Create Order), before rendering. */
export interface Accepted {
  orderId: string;
  clientOrderId: string;
  acceptedAt: Date;
  acceptedAtTsNs: bigint;
  resolvedBaseQty: bigint;
  submittedMaxQuoteDebit: bigint | undefined;
  market: Market;
  /** The public ids of the triggers executing its attached-risk legs. */
  legTriggers: Partial<Record<'stopLoss' | 'takeProfit' | 'trailingStop', string>>;
}

/** The engine's memory as `TradingEngine.memory()` copies it out. */
export interface EngineMemory {
  openOrders: OrderVersion[];
  balances: (BalanceRef & { available: bigint; held: bigint })[];
  /** Triggers not yet terminal. */
  triggers: TriggerRow[];
  armedSwitches: SwitchRow[];
  withdrawalHolds: (WithdrawHold & { intentId: bigint })[];
  /** Per market: the matching book's levels, and the level totals mirrored from its events. */
  books: { symbolId: number; depth: Depth; mirror: { bids: Map<bigint, bigint>; asks: Map<bigint, bigint> } }[];
}

/** What a ledger job may do inside the engine: post transfers and read the balances it loaded. */
export interface LedgerJob {
  post(transfer: { code: TransferRow['transferCode']; memo?: string; flowId?: bigint }, debits: LegSpec[], credits: LegSpec[]): TransferRow;
  balance(ref: BalanceRef): { available: bigint; held: bigint };
  /** Locks a credited deposit on the account it was credited to until its network's finality (depositLocks.ts). */
  lockDeposit(credit: { ref: BalanceRef; amount: bigint; serviceChainId: number; flowId: bigint }): void;
  /** The job's time, in microseconds, read inside the job. */
  nowUs: bigint;
}

export interface EngineDeps {
  db: Db;
  /** Raw SQL on the same database: journal appends and projections. */
  sql: SqlQueryable;
  clock: Clock;
  markets: MarketCatalog;
  /** Where committed entries' events are published, and subscribed to. */
  topics: TopicBus<TradingTopics>;
  systemAccounts: { fees: bigint; custody: bigint };
  logger: Logger;
  /** This process's claim to own trading state: the fence every append checks, and how to take it again. */
  owner: EngineOwner;
  /** Called once per loss if an append finds the fence moved: another process took trading state over. */
  onFenced(err: unknown): void;
  /** How long the projector lets entries gather before applying them (0: at once). */
  projectionDelayMs?: number;
  /** Told each entry's projection lag, in seconds (metrics). */
  onProjectionLag?: (seconds: number) => void;
  /** How long an order may wait for its journal append; past it, it is refused (503) and never stored. */
  commitDeadlineMs?: number;
  /** The chain's block interval: how long a credited deposit stays locked (depositLocks.ts); 1 s unless told. */
  chainBlockMs?: number;
  /** Live standalone triggers per trading account; `MAX_LIVE_TRIGGERS_PER_ACCOUNT` by default. */
  maxLiveTriggersPerAccount?: number;
}

/** The id sequences the parts take from; recovery sets them from the tables on every rebuild. */
export class EngineIds {
  orders!: MonotonicIds;
  transfers!: MonotonicIds;
  triggers!: MonotonicIds;
}

/**
 * A job's time, read inside the job: jobs then carry times in the order they were
 * applied, so ledger legs listed by time chain their balances. The Date and the epoch
 * nanoseconds come from one (monotonic) reading: two readings could straddle a millisecond,
 * or drift apart as the wall clock is adjusted, and an answer's `ts` would then disagree
 * with its `tsNs`.
 */
export function jobTime(clock: Clock) {
  const nowNs = clock.nowNs();
  return { now: new Date(Number(nowNs / 1_000_000n)), nowNs };
}

export function tradingRef(accountId: bigint, assetId: number): BalanceRef {
  return { accountId, ledgerAccount: 'TRADING', assetId };
}
