import type { Logger } from 'pino';
import { errors } from '../../domain/errorCatalogue.ts';
import type { SqlQueryable } from '../../infra/migrations.ts';
import type { Journal, JournalEntry } from './journal.ts';
import { projectWriteSet, type QuarantineInsert } from './persist.ts';
import { classifyFailure, entryFootprint, ParkedKeys, projectRange, reapplyPlan, sqlStateOf, storableText, type BatchPlan, type EntryFootprint } from './quarantine.ts';
import { WriteSet } from './writeSet.ts';

/** Most entries folded into one projection statement. */
const MAX_BATCH = 256;
const MAX_RETRY_MS = 2_000;
/** Longest a catch-up waits for batches already under way; past it, it fails and its caller retries. */
const CATCH_UP_WAIT_MS = 5_000;
/** Tries of one catch-up batch that keeps failing transiently before start-up (or a rebuild) gives up and says so. */
const CATCH_UP_ATTEMPTS = 8;
/** Tries of a single entry whose error is of no known class before it is parked. */
const UNKNOWN_ATTEMPTS = 3;
/** Longest error text kept with a parked entry. */
const MAX_ERROR_CHARS = 2_000;

/** A parked journal entry, as the quarantine table holds it. */
export interface QuarantinedEntry {
  seq: bigint;
  error: string;
  sqlState: string | null;
  /** The parked entry it waits behind; null for the one that failed itself. */
  behindSeq: bigint | null;
  parkedAt: Date;
  keys: string[];
  accountIds: bigint[];
}

/** What a re-apply did: the entries it projected, and the one that failed again, if any. */
export interface ReapplyOutcome {
  reapplied: bigint[];
  failed?: { seq: bigint; error: string; sqlState: string | null };
}

/** Raised when the stored watermark is not where this process thought: read it again, then go on. */
class StaleWatermark extends Error {
  readonly transient = true;
  constructor() {
    super('the projection watermark moved under this projector');
  }
}

/** An error's text as the quarantine keeps it: storable, and short enough to list. */
const errorText = (err: unknown) => storableText((err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR_CHARS));

export interface ProjectorOptions {
  name: string;
  logger: Logger;
  /** How long a batch waits for more entries before it is applied (0: at once). */
  delayMs: number;
  /** Told, per entry taken by `enqueue`, the seconds from its enqueueing to its being applied. */
  onLag?: (seconds: number) => void;
  /** Accounts whose balance rows never park later entries (the fee and custody accounts: quarantine.ts). */
  systemAccounts: ReadonlySet<bigint>;
}

/**
 * Applies journal entries to the tables that reads use, in batches, behind a watermark
 * (the last entry applied, stored in the same statement as the rows). Entries reach it
 * from the engine right after their append, so in normal running it never reads the
 * journal; at start-up and after a failed commit it catches up from the table. Applying
 * an entry twice changes nothing: a batch applies only where the watermark says it begins.
 *
 * An entry the tables cannot take does not stop it: the entry is parked in the quarantine
 * with every later entry that touches its rows, the watermark moves past them, and the
 * operator re-applies them after a fix (docs/scaling.md, "Quarantine").
 */
export class Projector {
  private applied = 0n;
  private readonly queue: (JournalEntry & { enqueuedAt?: number })[] = [];
  private running: Promise<void> | undefined;
  private readonly waiters: { seq: bigint; resolve(): void }[] = [];
  private parked = new ParkedKeys();
  private quarantined: QuarantinedEntry[] = [];
  /** Serialises the statements of batches and of re-applies: each plans against the parked keys the one before left. */
  private lock: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly sql: SqlQueryable,
    private readonly journal: Journal,
    private readonly options: ProjectorOptions,
  ) {}

  /** The last journal entry the read tables reflect. */
  get watermark(): bigint {
    return this.applied;
  }

  /** The entries parked now, oldest first. */
  get parkedEntries(): readonly QuarantinedEntry[] {
    return this.quarantined;
  }

  /** The last entry the journal's retention may drop: none that is parked. */
  get prunableThrough(): bigint {
    const first = this.quarantined[0];
    return first && first.seq <= this.applied ? first.seq - 1n : this.applied;
  }

  /** True when the read tables hold every entry through the watermark (nothing parked). */
  get complete(): boolean {
    return this.quarantined.length === 0;
  }

  /** Reads the stored watermark (creating it at 0 for a new database) and the parked entries. */
  async open(): Promise<bigint> {
    await this.sql.query(`INSERT INTO "ProjectionWatermark" (name, seq) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`, [this.options.name]);
    const [row] = await this.sql.query<{ seq: string }>(`SELECT seq::text AS seq FROM "ProjectionWatermark" WHERE name = $1`, [this.options.name]);
    this.applied = BigInt((row as { seq: string }).seq);
    await this.loadQuarantine();
    return this.applied;
  }

  private async loadQuarantine(): Promise<void> {
    const rows = await this.sql.query<{ seq: string; error: string; sqlState: string | null; behindSeq: string | null; parkedAt: Date | string; keys: string[]; accountIds: string[] }>(
      `SELECT seq::text AS seq, error, "sqlState", "behindSeq"::text AS "behindSeq", "parkedAt", keys, "accountIds"::text[] AS "accountIds"
       FROM "ProjectionQuarantine" WHERE name = $1 AND status = 'PARKED' ORDER BY seq`,
      [this.options.name],
    );
    const parked = new ParkedKeys();
    this.quarantined = rows.map((r) => {
      const entry: QuarantinedEntry = {
        seq: BigInt(r.seq),
        error: r.error,
        sqlState: r.sqlState,
        behindSeq: r.behindSeq === null ? null : BigInt(r.behindSeq),
        parkedAt: new Date(r.parkedAt),
        keys: r.keys,
        accountIds: r.accountIds.map(BigInt),
      };
      parked.add(entry.seq, footprintOf(entry));
      return entry;
    });
    this.parked = parked;
  }

  /**
   * Applies every entry the journal holds past the watermark (start-up, recovery), parking
   * what cannot be applied. A database that keeps failing is retried a bounded number of
   * times, then the error is thrown (start-up exits, a rebuild is retried by the sequencer).
   */
  async catchUp(): Promise<void> {
    // Both apply only where the watermark is, so racing an enqueued batch costs a retry at most.
    // Bounded: a batch retrying against a database that does not answer keeps the queue busy.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the projector is still retrying a batch')), CATCH_UP_WAIT_MS)));
    await Promise.race([this.idle(), late]).finally(() => clearTimeout(timer));
    await this.open();
    for (let attempt = 0; ; ) {
      try {
        const entries = await this.journal.read(this.applied, this.journal.lastSeq, MAX_BATCH);
        if (entries.length === 0) break;
        await this.apply(entries);
        attempt = 0;
      } catch (err) {
        if (++attempt >= CATCH_UP_ATTEMPTS) throw err;
        this.options.logger.warn({ err, attempt }, 'catching the trading projection up failed; retrying');
        await pause(attempt);
        await this.open();
      }
    }
    this.release();
  }

  /** Takes an entry just appended, to be applied shortly. */
  enqueue(entry: JournalEntry): void {
    this.queue.push(this.options.onLag ? { ...entry, enqueuedAt: performance.now() } : entry);
    this.running ??= this.drain();
  }

  /**
   * Resolves once the read tables reflect entry `seq`; refuses (503) past `timeoutMs`, so a
   * read never hangs behind a projection that cannot make progress (database down).
   */
  async reached(seq: bigint, timeoutMs: number, accountIds: readonly bigint[] = []): Promise<void> {
    if (this.parked.touchesAccount(accountIds)) throw quarantinedRows();
    if (this.applied >= seq) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(errors.PROJECTION_LAGGING('the read tables are behind the latest trading changes; retry'));
      }, timeoutMs);
      const waiter = {
        seq,
        resolve: () => {
          clearTimeout(timer);
          // The watermark may have moved past the very entry the read waited for, parking it.
          if (this.parked.touchesAccount(accountIds)) reject(quarantinedRows());
          else resolve();
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Resolves when every entry enqueued so far is applied (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      if (this.options.delayMs > 0) await new Promise((r) => setTimeout(r, this.options.delayMs));
      else await new Promise<void>((r) => setImmediate(r));
      for (let attempt = 0; this.queue.length > 0; ) {
        // Entries at or below the watermark were applied by a catch-up meanwhile.
        while (this.queue.length > 0 && (this.queue[0] as JournalEntry).seq <= this.applied) this.queue.shift();
        const batch = this.queue.slice(0, MAX_BATCH);
        if (batch.length === 0) break;
        try {
          if ((batch[0] as JournalEntry).seq !== this.applied + 1n) {
            // Entries are missing in between (a catch-up was refused): read them from the journal.
            const missing = await this.journal.read(this.applied, (batch[0] as JournalEntry).seq - 1n, MAX_BATCH);
            await this.apply(missing);
          } else {
            await this.apply(batch);
          }
          attempt = 0;
          this.release();
          this.reportLag(batch);
        } catch (err) {
          if (err instanceof StaleWatermark) {
            await this.open();
            continue;
          }
          this.options.logger.warn({ err }, 'projecting trading journal entries failed; retrying');
          await pause(attempt++);
        }
      }
    } finally {
      this.running = undefined;
      if (this.queue.length > 0) this.running = this.drain();
    }
  }

  /**
   * Applies consecutive entries starting right after the watermark, as one statement when
   * it can; an entry that fails deterministically is narrowed down by bisection and parked.
   */
  private apply(entries: JournalEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const { systemAccounts } = this.options;
    // Worked out only when something is parked or a batch fails: the normal path pays nothing.
    const footprinted = entries.map((e) => {
      let footprint: EntryFootprint | undefined;
      return {
        seq: e.seq,
        ws: e.ws,
        get footprint() {
          return (footprint ??= entryFootprint(e.ws, systemAccounts));
        },
      };
    });
    return this.exclusive(() =>
      projectRange(footprinted, this.parked, (plan) => this.run(plan), { unknownAttempts: UNKNOWN_ATTEMPTS, pause }),
    );
  }

  /** One plan as one statement: its entries applied, the parked ones recorded, the watermark past all of them. */
  private async run(plan: BatchPlan<JournalEntry & { footprint: EntryFootprint }>): Promise<void> {
    const park: QuarantineInsert[] = plan.behind.map(({ entry, behindSeq }) => ({
      seq: entry.seq,
      error: `parked behind quarantined entry ${behindSeq}: it touches the same rows`,
      sqlState: null,
      behindSeq,
      keys: [...entry.footprint.keys],
      accountIds: [...entry.footprint.accounts],
    }));
    if (plan.failed) {
      const { entry, err } = plan.failed;
      park.push({ seq: entry.seq, error: errorText(err), sqlState: sqlStateOf(err) ?? null, behindSeq: null, keys: [...entry.footprint.keys], accountIds: [...entry.footprint.accounts] });
    }
    const merged = new WriteSet();
    for (const e of plan.apply) merged.absorb(e.ws);
    let to = this.applied;
    for (const e of [...plan.apply, ...plan.behind.map((b) => b.entry), ...(plan.failed ? [plan.failed.entry] : [])]) if (e.seq > to) to = e.seq;
    const applied = await projectWriteSet(this.sql, merged, { name: this.options.name, from: this.applied, to, park });
    if (!applied) throw new StaleWatermark();
    this.applied = to;
    if (park.length === 0) return;
    const parkedAt = new Date();
    this.quarantined = [...this.quarantined, ...park.map((p) => ({ ...p, parkedAt }))].sort((a, b) => (a.seq < b.seq ? -1 : 1));
    if (plan.failed) {
      const { entry, err } = plan.failed;
      this.options.logger.error(
        { err, seq: entry.seq.toString(), sqlState: sqlStateOf(err) ?? null, accounts: park.at(-1)?.accountIds.map(String) },
        `trading journal entry ${entry.seq} cannot be projected: quarantined, the projection goes on without it (re-apply it with POST /operator/v1/projection/quarantine/${entry.seq}/reapply)`,
      );
    }
  }

  /**
   * Projects parked entry `seq` and the entries parked behind it, in sequence order, each
   * in its own statement; on success they leave the quarantine. An entry that fails again
   * stays parked with its new error, and so do those after it.
   */
  reapply(seq: bigint): Promise<ReapplyOutcome> {
    return this.exclusive(async () => {
      await this.loadQuarantine();
      const target = this.quarantined.find((e) => e.seq === seq);
      if (!target) throw errors.QUARANTINED_ENTRY_NOT_FOUND(`no parked trading journal entry ${seq}`);
      const plan = reapplyPlan(this.quarantined.map((e) => ({ ...e, footprint: footprintOf(e) })), seq);
      if (!plan) {
        throw errors.QUARANTINED_ENTRY_BEHIND(`entry ${seq} waits behind parked entry ${target.behindSeq ?? 'an earlier one'}: re-apply that one first`);
      }
      const outcome: ReapplyOutcome = { reapplied: [] };
      try {
        for (const entry of plan) {
          const [read] = await this.journal.read(entry.seq - 1n, entry.seq, 1);
          if (!read) throw new Error(`journal entry ${entry.seq} is no longer in the journal`);
          try {
            await projectWriteSet(this.sql, read.ws, { name: this.options.name, reapply: entry.seq });
          } catch (err) {
            if (classifyFailure(err) === 'transient') throw err;
            outcome.failed = { seq: entry.seq, error: errorText(err), sqlState: sqlStateOf(err) ?? null };
            await this.sql.query(`UPDATE "ProjectionQuarantine" SET error = $3, "sqlState" = $4, "behindSeq" = NULL WHERE name = $1 AND seq = $2::bigint AND status = 'PARKED'`, [
              this.options.name,
              entry.seq.toString(),
              outcome.failed.error,
              outcome.failed.sqlState,
            ]);
            this.options.logger.error({ err, seq: entry.seq.toString() }, `re-applying quarantined trading journal entry ${entry.seq} failed again: it stays parked`);
            break;
          }
          outcome.reapplied.push(entry.seq);
        }
      } finally {
        await this.loadQuarantine();
      }
      if (outcome.reapplied.length > 0) this.options.logger.warn({ reapplied: outcome.reapplied.map(String) }, 'quarantined trading journal entries re-applied');
      return outcome;
    });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lock.then(work, work);
    this.lock = run.catch(() => undefined);
    return run;
  }

  private reportLag(batch: (JournalEntry & { enqueuedAt?: number })[]): void {
    if (!this.options.onLag) return;
    const now = performance.now();
    for (const e of batch) if (e.enqueuedAt !== undefined && e.seq <= this.applied) this.options.onLag((now - e.enqueuedAt) / 1000);
  }

  private release(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i] as { seq: bigint; resolve(): void };
      if (w.seq <= this.applied) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }
}

const pause = (attempt: number) => new Promise<void>((r) => setTimeout(r, Math.min(50 * 2 ** attempt, MAX_RETRY_MS)));

const footprintOf = (e: QuarantinedEntry): EntryFootprint => ({ keys: new Set(e.keys), accounts: new Set(e.accountIds) });

const quarantinedRows = () =>
  errors.PROJECTION_LAGGING('the read tables are behind for this account: a trading journal entry touching it is quarantined; retry');
