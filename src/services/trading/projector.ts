import type { Logger } from 'pino';
import { ApiError } from '../../domain/errors.ts';
import type { SqlQueryable } from '../../infra/migrations.ts';
import type { Journal, JournalEntry } from './journal.ts';
import { projectWriteSet } from './persist.ts';
import { WriteSet } from './writeSet.ts';

/** Most entries folded into one projection statement. */
const MAX_BATCH = 256;
const MAX_RETRY_MS = 2_000;
/** Longest a catch-up waits for batches already under way; past it, it fails and its caller retries. */
const CATCH_UP_WAIT_MS = 5_000;

export interface ProjectorOptions {
  name: string;
  logger: Logger;
  /** How long a batch waits for more entries before it is applied (0: at once). */
  delayMs: number;
  /** Told, per entry taken by `enqueue`, the seconds from its enqueueing to its being applied. */
  onLag?: (seconds: number) => void;
}

/**
 * Applies journal entries to the tables that reads use, in batches, behind a watermark
 * (the last entry applied, stored in the same statement as the rows). Entries reach it
 * from the engine right after their append, so in normal running it never reads the
 * journal; at start-up and after a failed commit it catches up from the table. Applying
 * an entry twice changes nothing: a batch applies only where the watermark says it begins.
 */
export class Projector {
  private applied = 0n;
  private readonly queue: (JournalEntry & { enqueuedAt?: number })[] = [];
  private running: Promise<void> | undefined;
  private readonly waiters: { seq: bigint; resolve(): void }[] = [];

  constructor(
    private readonly sql: SqlQueryable,
    private readonly journal: Journal,
    private readonly options: ProjectorOptions,
  ) {}

  /** The last journal entry the read tables reflect. */
  get watermark(): bigint {
    return this.applied;
  }

  /** Reads the stored watermark (creating it at 0 for a new database). */
  async open(): Promise<bigint> {
    await this.sql.query(`INSERT INTO "ProjectionWatermark" (name, seq) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`, [this.options.name]);
    const [row] = await this.sql.query<{ seq: string }>(`SELECT seq::text AS seq FROM "ProjectionWatermark" WHERE name = $1`, [this.options.name]);
    this.applied = BigInt((row as { seq: string }).seq);
    return this.applied;
  }

  /** Applies every entry the journal holds past the watermark (start-up, recovery). */
  async catchUp(): Promise<void> {
    // Both apply only where the watermark is, so racing an enqueued batch costs a retry at most.
    // Bounded: a batch retrying against a database that does not answer keeps the queue busy.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the projector is still retrying a batch')), CATCH_UP_WAIT_MS)));
    await Promise.race([this.idle(), late]).finally(() => clearTimeout(timer));
    await this.open();
    for (;;) {
      const entries = await this.journal.read(this.applied, this.journal.lastSeq, MAX_BATCH);
      if (entries.length === 0) break;
      await this.apply(entries);
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
  async reached(seq: bigint, timeoutMs: number): Promise<void> {
    if (this.applied >= seq) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new ApiError('unavailable', 'the read tables are behind the latest trading changes; retry', { code: 'PROJECTION_LAGGING' }));
      }, timeoutMs);
      const waiter = {
        seq,
        resolve: () => {
          clearTimeout(timer);
          resolve();
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
          this.options.logger.warn({ err }, 'projecting trading journal entries failed; retrying');
          await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt++, MAX_RETRY_MS)));
        }
      }
    } finally {
      this.running = undefined;
      if (this.queue.length > 0) this.running = this.drain();
    }
  }

  /** Applies consecutive entries starting right after the watermark, as one statement. */
  private async apply(entries: JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const merged = new WriteSet();
    for (const e of entries) merged.absorb(e.ws);
    const from = this.applied;
    const to = (entries[entries.length - 1] as JournalEntry).seq;
    const applied = await projectWriteSet(this.sql, merged, { name: this.options.name, from, to });
    if (applied) this.applied = to;
    else await this.open();
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
