import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { CommitAbandoned, Sequencer } from '../../src/services/trading/sequencer.ts';
import type { WriteSet } from '../../src/services/trading/writeSet.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * The sequencer's contract, against a commit function the test controls: jobs are answered
 * only after their group is durable, a failed commit refuses everything applied on top of
 * the last durable state, and nothing runs against memory while it is being rebuilt.
 */
function harness() {
  const commits: { size: number; release(): void; fail(err: Error): void }[] = [];
  const recovered: unknown[] = [];
  let state = 0;
  let durable = 0;
  let recoverGate: Promise<void> | undefined;
  const sequencer = new Sequencer(
    (ws: WriteSet) =>
      new Promise<void>((resolve, reject) => {
        const size = ws.trades.length;
        commits.push({
          size,
          release: () => {
            durable = state;
            resolve();
          },
          fail: reject,
        });
      }),
    async (err) => {
      recovered.push(err);
      await recoverGate;
      state = durable;
    },
  );
  /** A job that changes the shared state and marks its write set (one trade row per job). */
  const job = (n: number) =>
    sequencer.submit((ws) => {
      state += n;
      ws.trades.push({} as never);
      return state;
    });
  const tick = () => new Promise<void>((r) => setImmediate(r));
  return {
    sequencer,
    commits,
    recovered,
    job,
    tick,
    get state() {
      return state;
    },
    holdRecovery() {
      let release!: () => void;
      recoverGate = new Promise<void>((r) => (release = r));
      return release;
    },
  };
}

describe('Sequencer', () => {
  it('answers a job only after its group commits, and commits what arrived meanwhile as the next group', async () => {
    const h = harness();
    const answered: number[] = [];
    const a = h.job(1).then((v) => answered.push(v));
    const b = h.job(2).then((v) => answered.push(v));
    await h.tick();
    expect(h.commits.map((c) => c.size)).toEqual([2]);
    const c = h.job(3).then((v) => answered.push(v));
    const d = h.job(4).then((v) => answered.push(v));
    await h.tick();
    expect(answered).toEqual([]);
    // One commit in flight at a time: the second group waits for the first.
    expect(h.commits).toHaveLength(1);
    h.commits[0]!.release();
    await Promise.all([a, b]);
    expect(answered).toEqual([1, 3]);
    await h.tick();
    expect(h.commits.map((x) => x.size)).toEqual([2, 2]);
    h.commits[1]!.release();
    await Promise.all([c, d]);
    expect(answered).toEqual([1, 3, 6, 10]);
  });

  it('answers a refused job with its own error, after the group commits, and drops what it wrote (so its events are never published)', async () => {
    const h = harness();
    const bad = h.sequencer.submit((ws) => {
      ws.trades.push({} as never);
      throw new ApiError('invalid-argument', 'no');
    });
    const good = h.sequencer.submit((ws) => {
      ws.trades.push({} as never);
      return 'ok';
    });
    const settled = Promise.allSettled([bad, good]);
    await h.tick();
    // Events are derived from the committed write set: it holds the good job's row alone.
    expect(h.commits.map((c) => c.size)).toEqual([1]);
    h.commits[0]!.release();
    const [r1, r2] = await settled;
    expect(r1).toMatchObject({ status: 'rejected', reason: { key: 'invalid-argument' } });
    expect(r2).toEqual({ status: 'fulfilled', value: 'ok' });
  });

  it('refuses the failed group and the one applied on top of it, and every job until memory is rebuilt', async () => {
    const h = harness();
    const first = h.job(1);
    await h.tick();
    h.commits[0]!.release();
    await expect(first).resolves.toBe(1);

    const failing = h.job(10);
    // Refused on its own in the failing group, against state about to be thrown away.
    const selfRefused = h.sequencer.submit(() => {
      throw new ApiError('invalid-argument', 'would have been refused');
    });
    await h.tick();
    const onTop = h.job(100);
    expect(h.state).toBe(111);
    const releaseRecovery = h.holdRecovery();
    // Prepared (loaded into memory) before the failure, submitted after the rebuild.
    let finishPreparing!: () => void;
    const preparedBefore = h.sequencer.submitAfter(() => new Promise<void>((r) => (finishPreparing = r)), () => 'stale');
    const outcomes = Promise.allSettled([failing, selfRefused, onTop]);
    h.commits[1]!.fail(new Error('disk full'));
    for (const o of await outcomes) expect(o).toMatchObject({ status: 'rejected', reason: { key: 'unavailable', code: 'COMMIT_FAILED' } });
    expect(h.recovered).toHaveLength(1);

    // During the rebuild: refused at once, never applied to the stale state.
    await expect(h.job(5)).rejects.toMatchObject({ key: 'unavailable', code: 'REBUILDING' });
    expect(h.state).toBe(111);
    releaseRecovery();
    await h.tick();
    expect(h.state).toBe(1);
    finishPreparing();
    await expect(preparedBefore).rejects.toMatchObject({ code: 'REBUILDING' });

    // After it: accepted on the rebuilt state.
    const after = h.job(5);
    await h.tick();
    h.commits[2]!.release();
    await expect(after).resolves.toBe(6);
  });

  it('never commits a group in which a job failed with a bug: every job in it is refused and memory is rebuilt', async () => {
    const h = harness();
    const before = h.job(1);
    const buggy = h.sequencer.submit((ws) => {
      ws.trades.push({} as never);
      throw new Error('half done');
    });
    const after = h.job(10);
    const outcomes = Promise.allSettled([before, buggy, after]);
    await h.tick();
    for (const o of await outcomes) expect(o).toMatchObject({ status: 'rejected', reason: { key: 'unavailable', code: 'BATCH_ABORTED' } });
    expect(h.commits).toHaveLength(0);
    expect(h.recovered).toEqual([expect.objectContaining({ message: 'half done' })]);
    expect(h.state).toBe(0);
    const next = h.job(5);
    await h.tick();
    h.commits[0]!.release();
    await expect(next).resolves.toBe(5);
  });

  it('flushed() waits for what was submitted before it, not for later jobs', async () => {
    const h = harness();
    const before = h.job(1);
    let flushed = false;
    const f = h.sequencer.flushed().then(() => (flushed = true));
    await h.tick();
    const after = h.job(2);
    await h.tick();
    expect(flushed).toBe(false);
    h.commits[0]!.release();
    await f;
    await before;
    expect(flushed).toBe(true);
    await h.tick();
    h.commits[1]!.release();
    await after;
  });

  it('gives up a commit that never answers at its deadline: its jobs are refused COMMIT_FAILED, and recovery, told it was abandoned, is not held up by it', async () => {
    const recovered: unknown[] = [];
    // The commit hangs as one on a connection that went silent would.
    const sequencer = new Sequencer(
      () => new Promise<void>(() => undefined),
      async (err) => void recovered.push(err),
      50,
    );
    const outcome = await sequencer.submit(() => 1).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(outcome).toBeInstanceOf(ApiError);
    expect((outcome as ApiError).code).toBe('COMMIT_FAILED');
    // Recovery runs although the abandoned commit never settles: its wait is bounded.
    await pollUntil(() => recovered.length === 1, 2_000, 10);
    expect(recovered[0]).toBeInstanceOf(CommitAbandoned);
    await pollUntil(() => {
      try {
        sequencer.assertReady();
        return true;
      } catch {
        return false;
      }
    }, 2_000, 10);
  });
});

describe('a job whose changes cannot be stored', () => {
  it('gets its own 400, its group is never committed, memory is rebuilt and the next job is committed', async () => {
    const committed: number[] = [];
    const recovered: unknown[] = [];
    let state = 0;
    let durable = 0;
    const sequencer = new Sequencer(
      async (ws: WriteSet) => {
        committed.push(ws.trades.length);
        durable = state;
      },
      async (err) => {
        recovered.push(err);
        state = durable;
      },
      Number.POSITIVE_INFINITY,
      undefined,
      (ws) => (ws.trades.some((t) => (t as { bad?: boolean }).bad) ? new ApiError('invalid-argument', 'Trade.qty: does not fit', { code: 'BAD_REQUEST' }) : null),
    );
    const job = (bad: boolean) =>
      sequencer.submit((ws) => {
        state += 1;
        ws.trades.push({ bad } as never);
        return state;
      });
    const other = job(false);
    const hostile = job(true);
    await expect(hostile).rejects.toMatchObject({ key: 'invalid-argument', message: 'Trade.qty: does not fit' });
    await expect(other).rejects.toMatchObject({ key: 'unavailable', code: 'BATCH_ABORTED' });
    expect(committed).toEqual([]);
    expect(recovered).toHaveLength(1);
    expect(state).toBe(0);
    await expect(job(false)).resolves.toBe(1);
    expect(committed).toEqual([1]);
  });
});
