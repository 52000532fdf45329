import { errors } from '../../domain/errorCatalogue.ts';
import type { Db } from '../../infra/database.ts';
import type { SqlQueryable } from '../../infra/migrations.ts';
import type { BalanceRef } from './balances.ts';
import type { FlowRow, WithdrawIntentRow, WithdrawStatusRow, WriteSet } from './writeSet.ts';

/** Intent statuses in which the amount and fee are still held. */
export const OPEN_WITHDRAW_STATUSES = ['ACCEPTED', 'PROCESSING', 'SUBMITTED'] as const;

/** What an accepted withdrawal holds: the bucket and amount a settlement debits or a failure releases. */
export interface WithdrawHold {
  ref: BalanceRef;
  held: bigint;
}

/** An intent as its idempotency key and nonce find it. */
interface Known {
  publicId: string;
  payloadHash: string;
}

/** How long a taken key or nonce stays in memory: by then its intent is long in the table. */
const KEY_MEMORY_MS = 60_000;

export type WithdrawSubmission = Omit<WithdrawIntentRow, 'id' | 'flowId'> & { flow: Omit<FlowRow, 'id'> };

/** What `prepare` read of one submission before its job: earlier intents with its key or nonce, and fresh ids. */
export interface PreparedWithdrawal {
  byKey: Known | undefined;
  nonceTaken: boolean;
  /** The memory's epoch when the table was read: a read older than a prune cannot be completed by memory. */
  epoch: number;
  intentId: bigint;
  flowId: bigint;
}

/**
 * The trading engine's withdrawal state: the holds of accepted withdrawals not yet ended,
 * and the idempotency keys and nonces taken, so that ten concurrent identical submissions
 * hold once. Keys and nonces are read from the table before a job and kept here once a job
 * takes them (the table lags the journal); jobs check both synchronously.
 */
export class WithdrawalBook {
  private holds = new Map<bigint, WithdrawHold>();
  /** Open withdrawals marked for broadcast (SUBMITTED): past the point where a reject or cancel may release them. */
  private submitted = new Set<bigint>();
  private readonly keys = new Map<string, Known & { at: number }>();
  private readonly nonces = new Map<string, number>();
  private epoch = 0;

  constructor(
    private readonly db: Db,
    private readonly sql: SqlQueryable,
  ) {}

  /** After a rebuild the tables are current: the open holds are read again, taken keys from the table as needed. */
  async load(): Promise<void> {
    const open = await this.db.withdrawIntent.findMany({ where: { status: { in: [...OPEN_WITHDRAW_STATUSES] } }, select: { id: true, accountId: true, assetId: true, amount: true, fee: true, status: true } });
    this.holds = new Map(open.map((w) => [w.id, { ref: { accountId: w.accountId, ledgerAccount: 'TRADING' as const, assetId: w.assetId }, held: BigInt(w.amount.toFixed(0)) + BigInt(w.fee.toFixed(0)) }]));
    this.submitted = new Set(open.filter((w) => w.status === 'SUBMITTED').map((w) => w.id));
    this.keys.clear();
    this.nonces.clear();
    this.epoch += 1;
  }

  /**
   * Forgets keys and nonces taken more than a minute ago, once the table holds every
   * acknowledged intent (`projected`): the table answers for them from then on.
   */
  prune(nowMs: number, projected: boolean): void {
    if (!projected) return;
    const before = nowMs - KEY_MEMORY_MS;
    let forgot = false;
    for (const [k, v] of this.keys) if (v.at < before) forgot = this.keys.delete(k);
    for (const [k, at] of this.nonces) if (at < before) forgot = this.nonces.delete(k);
    if (forgot) this.epoch += 1;
  }

  /** Copies of the holds of withdrawals not yet ended. */
  openHolds(): (WithdrawHold & { intentId: bigint })[] {
    return [...this.holds].map(([intentId, h]) => ({ intentId, ref: { ...h.ref }, held: h.held }));
  }

  holdOf(intentId: bigint): WithdrawHold | undefined {
    return this.holds.get(intentId);
  }

  /** Before the job: what the table knows of the key and nonce, and ids from the tables' own sequences. */
  async prepare(s: { accountId: bigint; idempotencyKey: string; nonce: bigint }): Promise<PreparedWithdrawal> {
    const epoch = this.epoch;
    const [earlier, [ids]] = await Promise.all([
      this.db.withdrawIntent.findMany({
        where: { accountId: s.accountId, OR: [{ idempotencyKey: s.idempotencyKey }, { nonce: s.nonce.toString() }] },
        select: { publicId: true, idempotencyKey: true, payloadHash: true },
      }),
      this.sql.query<{ intent: string; flow: string }>(`SELECT nextval(pg_get_serial_sequence('"WithdrawIntent"', 'id'))::text AS intent, nextval(pg_get_serial_sequence('"LifecycleFlow"', 'id'))::text AS flow`),
    ]);
    const byKey = earlier.find((e) => e.idempotencyKey === s.idempotencyKey);
    return {
      byKey: byKey ? { publicId: byKey.publicId, payloadHash: Buffer.from(byKey.payloadHash).toString('hex') } : undefined,
      nonceTaken: earlier.some((e) => e.idempotencyKey !== s.idempotencyKey),
      epoch,
      intentId: BigInt((ids as { intent: string }).intent),
      flowId: BigInt((ids as { flow: string }).flow),
    };
  }

  /**
   * Inside the job: the intent its key already names (same payload), or a refusal (the key
   * with another payload, a nonce used before), or undefined: a new withdrawal.
   */
  existing(s: WithdrawSubmission, prepared: PreparedWithdrawal): string | undefined {
    if (prepared.epoch !== this.epoch) throw errors.RETRY('withdrawal state was refreshed while this request was read; retry');
    const known = this.keys.get(`${s.accountId}:${s.idempotencyKey}`) ?? prepared.byKey;
    if (known) {
      if (known.payloadHash !== s.payloadHash) {
        throw errors.CONFLICT_IDEMPOTENCY_KEY_REUSED('idempotencyKey was used for another withdraw payload');
      }
      return known.publicId;
    }
    if (prepared.nonceTaken || this.nonces.has(`${s.accountId}:${s.nonce}`)) {
      throw errors.CONFLICT_NONCE_REUSED('nonce was already used by another withdrawal of this account');
    }
    return undefined;
  }

  /** Records an accepted withdrawal: its key and nonce are taken, its hold (if any) open (its flow is the flow book's). */
  accept(ws: WriteSet, intent: WithdrawIntentRow, hold: WithdrawHold | undefined, nowMs: number): void {
    this.keys.set(`${intent.accountId}:${intent.idempotencyKey}`, { publicId: intent.publicId, payloadHash: intent.payloadHash, at: nowMs });
    this.nonces.set(`${intent.accountId}:${intent.nonce}`, nowMs);
    if (hold) this.holds.set(intent.id, hold);
    ws.withdrawIntents.set(intent.id, intent);
  }

  isSubmitted(intentId: bigint): boolean {
    return this.submitted.has(intentId);
  }

  /** Marks an open withdrawal for broadcast: its hold stays, but only a settlement or a drop ends it from now on. */
  submit(ws: WriteSet, intentId: bigint, at: Date): void {
    this.submitted.add(intentId);
    ws.withdrawStatus({ id: intentId, status: 'SUBMITTED', failureReason: null, updatedAt: at });
  }

  /** Ends a withdrawal's hold (settled or released by the caller) and records its status. */
  end(ws: WriteSet, change: WithdrawStatusRow): void {
    this.holds.delete(change.id);
    this.submitted.delete(change.id);
    ws.withdrawStatus(change);
  }
}
