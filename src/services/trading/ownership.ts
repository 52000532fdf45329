import type { Database, ExclusiveHold } from '../../infra/database.ts';
import { advanceEngineFence, type EngineFence } from './persist.ts';

/** What the engine knows of its claim to be the one writer of trading state. */
export interface EngineOwner {
  /** The epoch every journal append must still find current. */
  readonly fence: EngineFence;
  /**
   * Takes the claim again after it was lost: true once this process holds the lock and has
   * moved the fence past every earlier epoch, false while another process holds the lock.
   */
  reacquire(): Promise<boolean>;
  /**
   * Moves the fence on while the lock is still held: an append this process gave up on,
   * possibly still in flight somewhere in the network, can then never be stored.
   */
  advance(): Promise<void>;
}

/**
 * The trading-engine lock of one database and the fence epoch taken with it
 * (docs/scaling.md, "One engine owner"). The lock says who may write; the fence makes a
 * writer that has not yet noticed it lost the lock unable to store anything.
 */
export class EngineOwnership implements EngineOwner {
  private hold: ExclusiveHold | undefined;
  private current: EngineFence | undefined;

  constructor(
    private readonly database: Pick<Database, 'holdExclusive' | 'sql'>,
    /** Runs when the lock's connection dies while held. */
    private readonly onLost: (err: Error) => void,
    private readonly name = 'trading-engine',
  ) {}

  get fence(): EngineFence {
    if (!this.current) throw new Error('the trading-engine fence was read before the lock was taken');
    return this.current;
  }

  /** Gives the lock up (a clean stop): the next owner may start at once. */
  async release(): Promise<void> {
    const hold = this.hold;
    this.hold = undefined;
    await hold?.release();
  }

  async advance(): Promise<void> {
    // An answer lost after PostgreSQL moved it leaves this epoch behind: the next append is
    // then refused as fenced off, and the lock is taken again under a newer one.
    this.current = await advanceEngineFence(this.database.sql, this.name);
  }

  async reacquire(): Promise<boolean> {
    await this.hold?.release();
    this.hold = undefined;
    const hold = await this.database.holdExclusive(this.name, (err) => {
      this.hold = undefined;
      this.onLost(err);
    });
    if (!hold) return false;
    try {
      // Before any state is read: from here on, a previous owner (this process included,
      // with what it sent before the lock was lost) can no longer commit.
      this.current = await advanceEngineFence(this.database.sql, this.name);
    } catch (err) {
      // Holding the lock without a new epoch would keep everyone, this process too, out.
      await hold.release();
      throw err;
    }
    this.hold = hold;
    return true;
  }
}
