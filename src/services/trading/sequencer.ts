import { ApiError } from '../../domain/errors.ts';
import { WriteSet } from './writeSet.ts';

interface Job {
  apply(ws: WriteSet): unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * The one writer of trading state. Jobs run one at a time against the in-memory books
 * and balances (synchronously, so nothing interleaves), adding their changes to the
 * batch's write set; the batch is committed to PostgreSQL in one transaction, and only
 * then are its jobs answered and their events published (group commit: jobs arriving
 * during a commit form the next batch). A job must validate before it mutates: one that
 * throws is answered with its error and must have changed nothing.
 */
export class Sequencer {
  private queue: Job[] = [];
  private draining = false;
  private readonly afterCommit: (() => void)[] = [];
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly commit: (ws: WriteSet) => Promise<void>,
    /** After a failed commit the in-memory state is ahead of the database: rebuild it. */
    private readonly recover: (err: unknown) => Promise<void>,
    private readonly maxBatch = 1000,
  ) {}

  submit<T>(apply: (ws: WriteSet) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ apply, resolve: resolve as (v: unknown) => void, reject });
      if (!this.draining) this.idle = this.drain();
    });
  }

  /** Runs `fn` once the current batch is durable (for publishing its events). */
  onCommit(fn: () => void): void {
    this.afterCommit.push(fn);
  }

  /** Resolves when every submitted job has been committed or rejected. */
  async flushed(): Promise<void> {
    await this.idle;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        // Let jobs submitted in the same tick join this batch.
        await new Promise<void>((r) => setImmediate(r));
        const batch = this.queue.splice(0, this.maxBatch);
        const ws = new WriteSet();
        const outcomes = batch.map((job) => {
          try {
            return { ok: true as const, value: job.apply(ws) };
          } catch (err) {
            return { ok: false as const, err };
          }
        });
        const published = this.afterCommit.splice(0);
        try {
          await this.commit(ws);
        } catch (err) {
          const unavailable = new ApiError('unavailable', 'the order could not be made durable; nothing was done', {
            code: 'COMMIT_FAILED',
            cause: err,
          });
          batch.forEach((job) => job.reject(unavailable));
          await this.recover(err);
          continue;
        }
        batch.forEach((job, i) => {
          const o = outcomes[i] as (typeof outcomes)[number];
          if (o.ok) job.resolve(o.value);
          else job.reject(o.err);
        });
        for (const fn of published) fn();
      }
    } finally {
      this.draining = false;
    }
  }
}
