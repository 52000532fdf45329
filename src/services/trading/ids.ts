import type { Db } from '../../infra/database.ts';

/**
 * Ids for rows the sequencer writes and references within one batch (orders, ledger
 * transfers). They are made in memory, synchronously, so a job can never run out of them
 * halfway: milliseconds since the epoch shifted left by 20 bits, plus one whenever that
 * would not exceed the last id. Only the engine-owning process writes these tables, and
 * it starts above the largest id already stored, so ids stay unique and increasing
 * (they fit in int64 until the year 2248).
 */
export class MonotonicIds {
  private constructor(private last: bigint) {}

  static async after(db: Db, table: 'Order' | 'LedgerTransfer' | 'Trigger'): Promise<MonotonicIds> {
    const rows = await db.$queryRawUnsafe<{ max: bigint | null }[]>(`SELECT max(id) AS max FROM "${table}"`);
    return new MonotonicIds(BigInt(rows[0]?.max ?? 0n));
  }

  take(): bigint {
    const fromClock = BigInt(Date.now()) << 20n;
    this.last = fromClock > this.last ? fromClock : this.last + 1n;
    return this.last;
  }
}
