import { ApiError, errors } from '../../domain/errorCatalogue.ts';
import { WriteSet } from './writeSet.ts';

interface Job {
  apply(ws: WriteSet): unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Jobs applied to memory and not yet durable, with what they return once committed. */
interface Group {
  ws: WriteSet;
  /** `own`: the job keeps its own refusal even when its group is refused as a whole. */
  settled: { job: Job; ok: boolean; value: unknown; own?: boolean }[];
  /** When its first job was applied (epoch ms): its commit must be durable within the deadline from here. */
  openedAt: number;
  /** Set when a job failed with something other than a refusal: a bug, whose changes may be half made. */
  aborted?: unknown;
  /** Resolves once the group is committed or refused. */
  done: Promise<void>;
  finish(): void;
}

/**
 * Longest pause between attempts to rebuild the state after a failed commit: once the
 * database answers again, trading resumes within this plus one attempt.
 */
export const MAX_REBUILD_BACKOFF_MS = 2_000;
/** How long past a group's deadline its commit may still answer before it is given up. */
const DEADLINE_MARGIN_MS = 250;

/** A commit given up at its deadline: its outcome is unknown until the journal is read again. */
export class CommitAbandoned extends Error {
  constructor() {
    super('the commit passed its deadline and was given up');
  }
}

export const rebuildingError = () =>
  errors.REBUILDING('the trading state is being rebuilt after a failed commit; retry');

// The database refused the commit or could not confirm it: usually nothing was stored, but
// a connection lost after PostgreSQL committed is possible, so a client looks it up first.
const notDurable = (cause: unknown) =>
  errors.COMMIT_FAILED('the change could not be confirmed as durable; look it up (e.g. by clientOrderId) before retrying', { cause });

const batchAborted = (cause: unknown) =>
  errors.BATCH_ABORTED('the change was not applied: an internal error aborted its batch; retry', { cause });

/**
 * The one writer of trading state, with group commit. A submitted job runs at once
 * against the in-memory books and balances (synchronously, so nothing interleaves),
 * adding its changes to the open group's write set. One commit is in flight at a time;
 * the moment it returns, everything applied meanwhile is committed as the next group, in
 * one transaction, and only then are its jobs answered and their events published. So
 * memory runs at most one group ahead of the database, and a commit never waits for
 * jobs to be applied.
 *
 * A job must validate before it mutates: one that throws an ApiError (a refusal) is
 * answered with it and must have changed nothing. Anything else a job throws is a bug that
 * may have left its changes half made: its whole group is then never committed but refused,
 * and memory is rebuilt, so a bug costs a retry, never a half-applied change in the
 * database. When a commit fails, memory is ahead of the database by that
 * group and by the open one applied on top of it: both are refused (neither was
 * acknowledged) and the state is rebuilt from the database. Jobs submitted during the
 * rebuild are refused too (503, retry): what their callers loaded into memory before
 * submitting them is gone.
 */
export class Sequencer {
  private open: Group = Sequencer.group();
  private inFlight: Group | undefined;
  private committing: Promise<void> | undefined;
  /** Set while the state is rebuilt after a failed commit. */
  private rebuilding = false;
  /** Counts rebuilds: what was loaded into memory before one is gone after it. */
  private generation = 0;

  /** The last commit given up at its deadline, until it has settled one way or the other. */
  private abandoned: Promise<void> | undefined;
  /** Why the state must be rebuilt although no commit failed (the engine lost its ownership). */
  private interrupted: unknown;

  constructor(
    /** Makes a group durable, unless past `deadline` (epoch ms): then it must store nothing, and fail. */
    private readonly commit: (ws: WriteSet, deadline: number) => Promise<void>,
    /** After a failed commit the in-memory state is ahead of the database: rebuild it. */
    private readonly recover: (err: unknown) => Promise<void>,
    /** How long a job may wait for durability after it was applied; past it, it is refused. */
    private readonly deadlineMs = Number.POSITIVE_INFINITY,
    /** Runs after each job that applied, in the same group: what the job's changes set off. */
    private readonly afterJob?: (ws: WriteSet) => void,
    /** Why the changes of one job (with what they set off) cannot be stored, or null: checked before they join the group. */
    private readonly unstorable?: (ws: WriteSet) => ApiError | null,
  ) {}

  private static group(): Group {
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    return { ws: new WriteSet(), settled: [], openedAt: 0, done, finish };
  }

  submit<T>(apply: (ws: WriteSet) => T): Promise<T> {
    if (this.rebuilding) return Promise.reject(rebuildingError());
    return new Promise<T>((resolve, reject) => this.run({ apply, resolve: resolve as (v: unknown) => void, reject }));
  }

  /**
   * Runs `prepare` (bringing into memory what the job will use), then submits the job,
   * unless a rebuild emptied memory in between.
   */
  async submitAfter<T>(prepare: () => Promise<unknown>, apply: (ws: WriteSet) => T): Promise<T> {
    const generation = this.generation;
    await prepare();
    if (generation !== this.generation) throw rebuildingError();
    return this.submit(apply);
  }

  /**
   * Stops taking work and rebuilds the state, although no commit failed: the state may no
   * longer be this process's to change (its engine lock was lost). A commit in flight
   * settles first; whatever was applied after it is refused.
   */
  interrupt(reason: unknown): void {
    this.interrupted = reason;
    this.rebuilding = true;
    this.committing ??= this.commitLoop();
  }

  /** For reads of in-memory state: refused (503, retry) while the state is rebuilt. */
  assertReady(): void {
    if (this.rebuilding) throw rebuildingError();
  }

  /** Resolves when every job submitted before the call has been committed or refused. */
  async flushed(): Promise<void> {
    const last = this.open.settled.length > 0 ? this.open : this.inFlight;
    await last?.done;
  }

  private run(job: Job): void {
    if (this.open.settled.length === 0) this.open.openedAt = Date.now();
    // Each job writes its own write set, folded into the group's only once its rows are
    // known to fit their tables: a row that cannot be stored never reaches the journal.
    const ws = new WriteSet();
    try {
      const value = job.apply(ws);
      this.afterJob?.(ws);
      const refusal = this.unstorable?.(ws) ?? null;
      if (refusal) {
        // The job's inputs were checked before it changed memory, so this is the last line
        // of defence: memory already holds the job's changes, so the group is never
        // committed and memory is rebuilt (its other jobs get a retryable 503), while this
        // job gets the 400 that names the value.
        this.open.settled.push({ job, ok: false, value: refusal, own: true });
        this.open.aborted ??= refusal;
      } else {
        this.open.ws.absorb(ws);
        this.open.settled.push({ job, ok: true, value });
      }
    } catch (err) {
      // A refused job changed nothing: its write set, and so its events, never join the group.
      this.open.settled.push({ job, ok: false, value: err });
      if (!(err instanceof ApiError)) this.open.aborted ??= err;
    }
    if (!this.committing) this.committing = this.commitLoop();
  }

  private async commitLoop(): Promise<void> {
    // Let the jobs submitted in the same tick join the first group.
    await new Promise<void>((r) => setImmediate(r));
    for (;;) {
      if (this.interrupted !== undefined) {
        await this.refuseAndRebuild([this.open], this.interrupted, rebuildingError());
        continue;
      }
      if (this.open.settled.length === 0) break;
      const group = this.open;
      this.open = Sequencer.group();
      this.inFlight = group;
      try {
        if (group.aborted !== undefined) throw group.aborted;
        await this.commitWithin(group);
      } catch (err) {
        await this.refuseAndRebuild([group, this.open], err, group.aborted !== undefined ? batchAborted(err) : notDurable(err));
        continue;
      } finally {
        this.inFlight = undefined;
      }
      for (const { job, ok, value } of group.settled) {
        if (ok) job.resolve(value);
        else job.reject(value);
      }
      group.finish();
    }
    this.committing = undefined;
  }

  /**
   * Commits a group, giving it up shortly after its deadline: a partition or a stuck
   * connection then costs its clients a 503 at the bound, not a wait as long as the
   * outage. The commit itself refuses to store anything past the deadline and gives its
   * connection up soon after it; the rebuild that follows waits (boundedly) for it to
   * settle, and `recover`, told it was abandoned, decides its outcome from the database
   * (the engine moves its fence first), so memory is rebuilt from its final outcome.
   */
  private async commitWithin(group: Group): Promise<void> {
    const deadline = group.openedAt + this.deadlineMs;
    const attempt = this.commit(group.ws, deadline);
    if (!Number.isFinite(deadline)) return attempt;
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CommitAbandoned()), Math.max(0, deadline - Date.now()) + DEADLINE_MARGIN_MS);
    });
    try {
      await Promise.race([attempt, givenUp]);
    } catch (err) {
      this.abandoned = attempt.then(
        () => undefined,
        () => undefined,
      );
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async refuseAndRebuild(groups: Group[], err: unknown, refusal: ApiError): Promise<void> {
    this.rebuilding = true;
    this.open = Sequencer.group();
    this.refuse(groups, refusal);
    // A commit given up at its deadline may still land (before its deadline): rebuild from
    // its outcome. The commit gives its connection up soon after the deadline, so this wait
    // ends then; bounded all the same by another deadline's length, after which `recover`
    // (told the commit was abandoned) decides its outcome from the database.
    await this.settledWithin(this.abandoned, this.deadlineMs);
    this.abandoned = undefined;
    // An interruption arriving from here on calls for a rebuild after this one.
    this.interrupted = undefined;
    // Memory cannot be trusted until a rebuild succeeds (the database may be down a while).
    for (let attempt = 0; ; attempt++) {
      try {
        await this.recover(err);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, MAX_REBUILD_BACKOFF_MS)));
      }
    }
    this.generation += 1;
    this.rebuilding = this.interrupted !== undefined;
  }

  private async settledWithin(p: Promise<void> | undefined, ms: number): Promise<void> {
    if (!p || !Number.isFinite(ms)) return p;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /** Every job of a refused group gets the refusal, even one that failed on its own: that answer was worked out against state now thrown away. */
  private refuse(groups: Group[], refusal: ApiError): void {
    for (const g of groups) {
      for (const { job, value, own } of g.settled) job.reject(own ? value : refusal);
      g.finish();
    }
  }
}
