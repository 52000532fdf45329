import type { Logger } from 'pino';
import { OrderBook } from '../../domain/matching/index.ts';
import { TriggerBook } from '../../domain/triggers/index.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import { isReadTimeout } from '../../infra/databaseErrors.ts';
import type { SqlQueryable } from '../../infra/migrations.ts';
import type { Market, MarketCatalog } from '../markets.ts';
import type { BalanceBook } from './balances.ts';
import type { BookLevels } from './core/placement.ts';
import type { TradingCore } from './core/tradingCore.ts';
import type { DeadManSwitches } from './deadManSwitches.ts';
import type { DepositLocks } from './depositLocks.ts';
import type { EngineIds, Owner } from './engineTypes.ts';
import { MonotonicIds } from './ids.ts';
import type { Journal } from './journal.ts';
import { OpenOrders } from './openOrders.ts';
import type { EngineOwner } from './ownership.ts';
import { isFenceLost } from './persist.ts';
import type { Projector } from './projector.ts';
import { CommitAbandoned } from './sequencer.ts';
import type { TriggerEngine } from './triggers/triggerEngine.ts';
import type { WithdrawalBook } from './withdrawals.ts';
import type { FlowBook } from './flowJobs.ts';
import type { OrderRow, TriggerRow } from './writeSet.ts';

/** More than the book changes two uncommitted groups can make. */
const BOOK_SEQUENCE_JUMP = 1_000_000n;

export interface RecoveryDeps {
  db: Db;
  sql: SqlQueryable;
  clock: Clock;
  markets: MarketCatalog;
  logger: Logger;
  owner: EngineOwner;
  onFenced(err: unknown): void;
  balances: BalanceBook;
  locks: DepositLocks;
  withdrawals: WithdrawalBook;
  flows: FlowBook;
  journal: Journal;
  projector: Projector;
  ids: EngineIds;
  core: Pick<TradingCore, 'refsFor' | 'loadTiers' | 'install'>;
  triggers: Pick<TriggerEngine, 'install'>;
  switches: Pick<DeadManSwitches, 'restore'>;
}

/**
 * Loading trading state from the database: at start-up, and after a failed commit, a job
 * with a bug or a lost lock, when memory may be ahead of the journal. The read tables are
 * brought up to the journal's end first; every part then takes what was loaded at once.
 */
export class Recovery {
  /** Entries parked when memory was last rebuilt: memory, loaded from the tables, lacks them. */
  private parkedAtRebuild = new Set<bigint>();
  /** False from a lost lock or a moved fence until the lock is held and the fence moved again. */
  private owned = true;
  private readonly balances: BalanceBook;
  private readonly journal: Journal;
  private readonly projector: Projector;

  constructor(private readonly deps: RecoveryDeps) {
    this.balances = deps.balances;
    this.journal = deps.journal;
    this.projector = deps.projector;
  }

  /** Brings the read tables up to the journal's end and loads the books from them (start-up). */
  start(): Promise<void> {
    return this.rebuild();
  }

  /** The engine lock was lost: nothing is rebuilt until it is held again. */
  disown(): void {
    this.owned = false;
  }

  /**
   * Parked entries were projected (`seqs`): true if memory was rebuilt while any of them
   * was parked, and so lacks it: then it must be rebuilt again.
   */
  reapplied(seqs: readonly bigint[]): boolean {
    if (!seqs.some((s) => this.parkedAtRebuild.has(s))) return false;
    for (const s of seqs) this.parkedAtRebuild.delete(s);
    return true;
  }

  /**
   * After a failed append, a job with a bug or a lost lock: memory may be ahead of the
   * journal, so rebuild it, once this process owns trading state again.
   */
  async recover(err: unknown): Promise<void> {
    if (isFenceLost(err) && this.owned) {
      this.owned = false;
      this.deps.onFenced(err);
    }
    if (!this.owned) {
      // While another process holds the lock, rebuilding would only read what it writes:
      // the sequencer keeps refusing work and calls again after a pause.
      if (!(await this.deps.owner.reacquire())) throw new Error('another process holds the trading-engine lock');
      this.owned = true;
      this.deps.logger.warn('took the trading-engine lock again: rebuilding books and balances from the database');
    } else {
      this.deps.logger.error({ err }, 'a trading batch failed (its commit, or a job with a bug): rebuilding books and balances from the database');
      if (err instanceof CommitAbandoned || isReadTimeout(err)) {
        // The append was given up unanswered and may still be on its way to PostgreSQL.
        // Moving the fence decides its outcome: it either landed before (the journal read
        // next shows its seq) or is refused whenever it arrives.
        await this.deps.owner.advance();
      }
    }
    this.balances.reset();
    // The sequencer retries with backoff and refuses work meanwhile; say why each time.
    await this.rebuild().catch((rebuildErr: unknown) => {
      this.deps.logger.error({ err: rebuildErr }, 'rebuilding the trading state failed: trading stays refused until it succeeds');
      throw rebuildErr;
    });
  }

  /** Brings the read tables up to the end of the journal: memory is rebuilt from them. */
  private async syncFromJournal(): Promise<void> {
    await this.journal.open(await this.projector.open());
    await this.projector.catchUp();
  }

  /**
   * Loads the books from PostgreSQL beside the current ones and swaps them in at once, so
   * nothing ever finds an engine missing; after a failed commit the sequencer refuses work
   * and book snapshots until the swap.
   */
  private async rebuild(): Promise<void> {
    await this.syncFromJournal();
    this.parkedAtRebuild = new Set(this.projector.parkedEntries.map((e) => e.seq));
    // Balances loaded while the tables were still behind the journal must not be used.
    this.balances.reset();
    const nextOrderIds = await MonotonicIds.after(this.deps.db, 'Order');
    const nextTransferIds = await MonotonicIds.after(this.deps.db, 'LedgerTransfer');
    const nextEngines = new Map<number, OrderBook>();
    const nextOpen = new OpenOrders();
    const nextBooks = new Map<number, BookLevels>();
    for (const market of this.deps.markets.markets) {
      // Snapshots may have shown changes that were never committed, under numbers above the
      // stored one: start past any of them, durably, so no number is ever reused with other
      // content (subscribers see a gap and fetch a new snapshot).
      const seq = await this.deps.db.marketSequence.update({ where: { symbolId: market.symbolId }, data: { lastBookSeq: { increment: BOOK_SEQUENCE_JUMP } } });
      const engine = new OrderBook({
        symbol: market.symbol,
        tickSize: market.tickSize,
        baseScale: market.baseQuantityScale,
        quoteScale: market.quoteQuantityScale,
        nextMatchId: seq.lastMatchId + 1n,
        nextPrioritySeq: seq.lastPrioritySeq + 1n,
      });
      const rows = await this.deps.db.order.findMany({
        where: { symbolId: market.symbolId, isOpen: true },
        orderBy: { prioritySeq: 'asc' },
        include: { account: { select: { publicId: true } } },
      });
      engine.restore(
        rows.map((r) => ({
          orderId: r.id,
          accountId: r.accountId,
          side: r.side,
          tif: r.tif as 'GTC' | 'GTD',
          price: r.price,
          qty: r.leavesQty,
          prioritySeq: r.prioritySeq,
          postOnly: r.postOnly,
          stpMode: r.stpMode,
          ...(r.expireAtTsNs !== null ? { expireAtNs: r.expireAtTsNs } : {}),
        })),
      );
      // Every account with a resting order may be charged as a maker: its balances and tier
      // must be in memory before any job matches against it.
      const makers = [...new Set(rows.map((r) => r.accountId))];
      await this.balances.load(this.deps.core.refsFor(makers, market));
      await this.deps.core.loadTiers(makers);
      for (const r of rows) {
        const { account, ...row } = r;
        nextOpen.set(r.id, { ...row, cumNotionalQ9: BigInt(row.cumNotionalQ9.toFixed(0)), inheritedNotionalQ9: BigInt(row.inheritedNotionalQ9.toFixed(0)), heldE18: BigInt(row.heldE18.toFixed(0)), accountPublicId: account.publicId } as OrderRow & { accountPublicId: string });
      }
      nextEngines.set(market.symbolId, engine);
      const depth = engine.depth();
      nextBooks.set(market.symbolId, {
        bids: new Map(depth.bids.map((l) => [l.price, l.qty])),
        asks: new Map(depth.asks.map((l) => [l.price, l.qty])),
        sequence: seq.lastBookSeq,
      });
    }
    await this.loadTriggers();
    await this.deps.withdrawals.load();
    await this.deps.locks.load(this.deps.clock.now().getTime());
    await this.deps.flows.load();
    const armed = await this.deps.db.deadManSwitch.findMany({ where: { status: 'ARMED' } });
    this.deps.switches.restore(
      armed.map((sw) => ({ accountId: sw.accountId, symbolId: sw.symbolId, side: sw.side, status: sw.status, timeoutSec: sw.timeoutSec, expiresAtTsNs: sw.expiresAtTsNs, requestId: sw.requestId, armedAt: sw.armedAt, lastFiredAtTsNs: sw.lastFiredAtTsNs })),
    );
    this.deps.ids.orders = nextOrderIds;
    this.deps.ids.transfers = nextTransferIds;
    this.deps.core.install({ engines: nextEngines, open: nextOpen, books: nextBooks });
  }

  /** Live triggers, their owners' balances and tiers, and each symbol's last price, from the tables. */
  private async loadTriggers(): Promise<void> {
    this.deps.ids.triggers = await MonotonicIds.after(this.deps.db, 'Trigger');
    const rows = await this.deps.db.trigger.findMany({
      where: { status: { in: ['CREATED', 'ARMED', 'TRIGGERED', 'RUNNING', 'PAUSED'] } },
      orderBy: { id: 'asc' },
      include: { account: { select: { publicId: true } } },
    });
    const last = await this.deps.sql.query<{ symbolId: number; price: string }>(
      `SELECT DISTINCT ON ("symbolId") "symbolId", price::text AS price FROM "Trade" ORDER BY "symbolId", "matchId" DESC`,
    );
    const triggers = new Map<bigint, { row: TriggerRow; owner: Owner }>();
    const books = new Map<number, TriggerBook>();
    const trailing = new Map<number, Set<bigint>>();
    const twaps = new Set<bigint>();
    for (const r of rows) {
      const { account, triggerPriceSource: _source, nextFireAtTsNs: _next, ...rest } = r;
      const row = { ...rest, heldE18: BigInt(r.heldE18.toFixed(0)), triggerPrice: r.triggerPrice ?? 0n, params: JSON.stringify(r.params), state: JSON.stringify(r.state) } as TriggerRow;
      triggers.set(row.id, { row, owner: { id: row.accountId, publicId: account.publicId } });
      let book = books.get(row.symbolId);
      if (!book) books.set(row.symbolId, (book = new TriggerBook()));
      if (row.status !== 'ARMED') continue;
      if (row.triggerType === 'TWAP') {
        twaps.add(row.id);
      } else if (row.triggerType === 'TRAILING_STOP') {
        let ids = trailing.get(row.symbolId);
        if (!ids) trailing.set(row.symbolId, (ids = new Set()));
        ids.add(row.id);
      } else {
        book.add({ id: row.id, direction: row.triggerDirection, triggerPrice: row.triggerPrice });
      }
    }
    // A trigger may fire inside any job: its owner's balances and tier must be in memory.
    for (const { row, owner } of triggers.values()) await this.balances.load(this.deps.core.refsFor([owner.id], this.deps.markets.marketById(row.symbolId) as Market));
    await this.deps.core.loadTiers([...new Set([...triggers.values()].map((t) => t.owner.id))]);
    this.deps.triggers.install({ triggers, books, trailing, twaps, lastPrice: new Map(last.map((l) => [l.symbolId, BigInt(l.price)])) });
  }
}
