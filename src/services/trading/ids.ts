import type { Db } from '../../infra/database.ts';

/**
 * Ids for rows the sequencer writes and references within one batch (orders, ledger
 * transfers), taken in blocks from the table's own sequence so jobs can stay synchronous.
 * Only the engine-owning process allocates, so blocks never overlap.
 */
export class IdBlocks {
  private next = 0n;
  private end = -1n;

  constructor(
    private readonly db: Db,
    private readonly table: 'Order' | 'LedgerTransfer',
    private readonly blockSize = 10_000,
  ) {}

  /** Makes sure at least `n` ids can be taken without waiting. */
  async reserve(n: number): Promise<void> {
    if (this.end - this.next + 1n >= BigInt(n)) return;
    const size = Math.max(this.blockSize, n);
    const seq = `pg_get_serial_sequence('"${this.table}"', 'id')`;
    const rows = await this.db.$queryRawUnsafe<{ last: bigint }[]>(
      `SELECT setval(${seq}, nextval(${seq}) + ${size - 1}) AS last`,
    );
    const last = BigInt(rows[0]?.last as bigint);
    this.next = last - BigInt(size) + 1n;
    this.end = last;
  }

  take(): bigint {
    if (this.next > this.end) throw new Error(`${this.table} id block exhausted: reserve() first`);
    return this.next++;
  }
}
