import type { Db } from '../../infra/database.ts';
import type { LedgerJob } from './engineTypes.ts';
import type { FlowRow, FlowUpdateRow, WriteSet } from './writeSet.ts';

/** A flow's next state, computed from the version the caller read: applied only while the flow is still there. */
export interface FlowMove {
  next: Omit<FlowUpdateRow, 'version'>;
  from: bigint;
}

/** What identifies a deposit on its chain: one flow per (chain, transaction, log index). */
export interface DepositKey {
  serviceChainId: number;
  sourceTxHash: string;
  txOccurrenceIndex: string;
}

/** What `prepareDeposit` read before the job: the deposit's flow in the table, if any, and an id for a new one. */
export interface PreparedDeposit {
  stored: string | undefined;
  closes: number;
  flowId: bigint;
}

/** The job could not tell whether the deposit was known (its table read raced an ended deposit): read and run again. */
export const READ_AGAIN = Symbol('read again');

/** What a flow job may do: a ledger job's transfers and locks, and the flow steps that go with them. */
export interface FlowJob extends LedgerJob {
  can(move: FlowMove): boolean;
  move(move: FlowMove): boolean;
  insert(row: FlowRow): void;
  knownDeposit(key: DepositKey, prepared: PreparedDeposit): string | undefined | typeof READ_AGAIN;
}

const keyOf = (k: DepositKey) => `${k.serviceChainId}:${k.sourceTxHash}:${k.txOccurrenceIndex}`;

/**
 * The trading engine's view of the chain flows: the version of every open flow, and the
 * open deposits by chain transaction. The engine is the flow tables' only writer: each
 * step is a `FlowMove` applied inside a job only while the flow is still at the version
 * the step was computed from (compare and set), in the same journal entry as the money it
 * moves, holds or locks. Two steps computed from one version can never both apply; the
 * loser reads the flow again. Rebuilt from the table at every rebuild.
 */
export class FlowBook {
  private versions = new Map<bigint, bigint>();
  private deposits = new Map<string, { id: bigint; publicId: string }>();
  private depositKeys = new Map<bigint, string>();
  /** Counts deposits leaving `deposits`: a table read begun before one may have missed it. */
  private closes = 0;

  constructor(private readonly db: Db) {}

  /** After a rebuild the table is current: the open flows are read again. */
  async load(): Promise<void> {
    const open = await this.db.lifecycleFlow.findMany({
      where: { isOpen: true },
      select: { id: true, publicId: true, version: true, flowKind: true, serviceChainId: true, sourceTxHash: true, txOccurrenceIndex: true },
    });
    this.versions = new Map(open.map((f) => [f.id, f.version]));
    this.deposits = new Map();
    this.depositKeys = new Map();
    for (const f of open) {
      if (f.flowKind === 'DEPOSIT' && f.serviceChainId !== null && f.sourceTxHash !== null && f.txOccurrenceIndex !== null) {
        this.remember(f.id, f.publicId, { serviceChainId: f.serviceChainId, sourceTxHash: f.sourceTxHash, txOccurrenceIndex: f.txOccurrenceIndex });
      }
    }
    this.closes += 1;
  }

  private remember(id: bigint, publicId: string, key: DepositKey): void {
    this.deposits.set(keyOf(key), { id, publicId });
    this.depositKeys.set(id, keyOf(key));
  }

  /** The version of an open flow; undefined once it ended (or never was). */
  versionOf(id: bigint): bigint | undefined {
    return this.versions.get(id);
  }

  /** Inside a job: whether `move` would apply (the flow is open and still at `move.from`). */
  can(move: FlowMove): boolean {
    return this.versions.get(move.next.id) === move.from;
  }

  /** Inside a job: applies `move` if the flow is still where it was read; false (nothing written) otherwise. */
  move(ws: WriteSet, move: FlowMove): boolean {
    if (!this.can(move)) return false;
    const version = move.from + 1n;
    ws.flowUpdate({ ...move.next, version });
    if (move.next.isOpen) {
      this.versions.set(move.next.id, version);
    } else {
      this.versions.delete(move.next.id);
      const key = this.depositKeys.get(move.next.id);
      if (key !== undefined) {
        this.deposits.delete(key);
        this.depositKeys.delete(move.next.id);
        this.closes += 1;
      }
    }
    return true;
  }

  /** Inside a job: a new flow (a withdrawal's, a deposit's), at the version its row starts at. */
  insert(ws: WriteSet, row: FlowRow): void {
    ws.flows.push(row);
    if (!row.isOpen) {
      // A deposit that ends as it is reported (unsupported, below the minimum) is only in the table once projected.
      if (row.flowKind === 'DEPOSIT') this.closes += 1;
      return;
    }
    this.versions.set(row.id, row.version);
    if (row.flowKind === 'DEPOSIT' && row.serviceChainId !== null && row.sourceTxHash !== null && row.txOccurrenceIndex !== null) {
      this.remember(row.id, row.publicId, { serviceChainId: row.serviceChainId, sourceTxHash: row.sourceTxHash, txOccurrenceIndex: row.txOccurrenceIndex });
    }
  }

  /** A job's flow steps, written to its write set. */
  writer(ws: WriteSet): Pick<FlowJob, 'can' | 'move' | 'insert' | 'knownDeposit'> {
    return { can: (m) => this.can(m), move: (m) => this.move(ws, m), insert: (row) => this.insert(ws, row), knownDeposit: (key, prepared) => this.knownDeposit(key, prepared) };
  }

  /**
   * Before the job: the deposit's flow as the table has it, and an id from the table's
   * sequence for a new one. `settled` brings the table up to every job applied so far
   * (committed and projected), so a deposit that ended before the count was taken is read.
   */
  async prepareDeposit(key: DepositKey, settled: () => Promise<void>): Promise<PreparedDeposit> {
    const closes = this.closes;
    await settled();
    const [stored, [ids]] = await Promise.all([
      this.db.lifecycleFlow.findUnique({ where: { flowKind_serviceChainId_sourceTxHash_txOccurrenceIndex: { flowKind: 'DEPOSIT', ...key } }, select: { publicId: true } }),
      this.db.$queryRawUnsafe<{ id: bigint }[]>(`SELECT nextval(pg_get_serial_sequence('"LifecycleFlow"', 'id')) AS id`),
    ]);
    return { stored: stored?.publicId, closes, flowId: (ids as { id: bigint }).id };
  }

  /**
   * Inside the job: the public id of the deposit's flow if it is known (open here, or in the
   * table when read), undefined for a new deposit, or READ_AGAIN when a deposit ended
   * between the read and the job (the read may predate its insert's projection).
   */
  knownDeposit(key: DepositKey, prepared: PreparedDeposit): string | undefined | typeof READ_AGAIN {
    const open = this.deposits.get(keyOf(key));
    if (open) return open.publicId;
    if (prepared.stored !== undefined) return prepared.stored;
    return prepared.closes === this.closes ? undefined : READ_AGAIN;
  }
}
