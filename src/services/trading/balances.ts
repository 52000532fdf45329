import { ApiError, errors } from '../../domain/errorCatalogue.ts';
import { decimalToBigInt, formatScaled } from '../../domain/money.ts';
import type { LedgerAccount, TransferCode, TransferSideKind } from '../../generated/prisma/client.ts';
import type { Db } from '../../infra/database.ts';
import type { DepositLocks } from './depositLocks.ts';
import type { LegRow, TransferRow, WriteSet } from './writeSet.ts';

export interface BalanceRef {
  accountId: bigint;
  ledgerAccount: LedgerAccount;
  assetId: number;
}

interface Entry extends BalanceRef {
  available: bigint;
  held: bigint;
  /** The account's public id, for its balance stream; null for a system account (no one subscribes to it). */
  accountPublicId: string | null;
}

export interface LegSpec {
  ref: BalanceRef;
  amount: bigint;
  /** Debits come out of `held` (a reservation) or `available`; credits go to available. */
  debitFrom?: 'available' | 'held';
  code?: TransferCode;
  kind?: TransferSideKind;
}

const keyOf = (r: BalanceRef) => `${r.accountId}:${r.ledgerAccount}:${r.assetId}`;
const otherLedger = (r: BalanceRef): BalanceRef => ({ ...r, ledgerAccount: r.ledgerAccount === 'FUNDING' ? 'TRADING' : 'FUNDING' });

/**
 * The single authority on balances inside the engine-owning process. Every balance
 * change happens here, synchronously, inside a sequencer job, so checks and changes
 * cannot interleave; the same changes are written as deltas with the job's batch.
 * System accounts (custody, fees) may go negative: they are the other side of deposits
 * and fees, so every asset's legs always sum to zero.
 */
export class BalanceBook {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<void>>();
  /** Counts resets: a load that began before one brings nothing into memory. */
  private epoch = 0;

  constructor(
    private readonly db: Db,
    private readonly locks?: DepositLocks,
  ) {}

  /**
   * Brings balances into memory (from their committed state) before a job uses them, the
   * missing ones in one query. A balance not in memory has not changed since the last
   * rebuild, which brought the table up to the journal's end, so its row is current.
   */
  async load(named: BalanceRef[]): Promise<void> {
    // A locked account's other ledger counts toward what it keeps: loaded with the one named.
    const refs = this.locks ? [...named, ...named.filter((r) => this.locks?.has(r.accountId, r.assetId)).map(otherLedger)] : named;
    const waits = new Set<Promise<void>>();
    const missing = new Map<string, BalanceRef>();
    for (const ref of refs) {
      const key = keyOf(ref);
      if (this.entries.has(key)) continue;
      const pending = this.loading.get(key);
      if (pending) waits.add(pending);
      else missing.set(key, ref);
    }
    if (missing.size > 0) {
      const wanted = [...missing.values()];
      const epoch = this.epoch;
      // The accounts' public ids are read with them: each change journals the balance after
      // it under its account's public id (the balance stream), as order versions do.
      const p = Promise.all([
        this.db.balance.findMany({ where: { OR: wanted.map((r) => ({ accountId: r.accountId, ledgerAccount: r.ledgerAccount, assetId: r.assetId })) } }),
        this.db.account.findMany({ where: { id: { in: [...new Set(wanted.map((r) => r.accountId))] } }, select: { id: true, publicId: true, kind: true } }),
      ])
        .then(([rows, accounts]) => {
          // Read before a reset: the table may have been behind memory then.
          if (epoch !== this.epoch) return;
          const found = new Map(rows.map((row) => [keyOf(row), row]));
          const publicIds = new Map(accounts.map((a) => [a.id, a.kind === 'SYSTEM' ? null : a.publicId]));
          for (const [key, ref] of missing) {
            if (this.entries.has(key)) continue;
            const row = found.get(key);
            this.entries.set(key, {
              ...ref,
              available: row ? decimalToBigInt(row.available) : 0n,
              held: row ? decimalToBigInt(row.held) : 0n,
              accountPublicId: publicIds.get(ref.accountId) ?? null,
            });
          }
        })
        .finally(() => {
          for (const key of missing.keys()) if (this.loading.get(key) === p) this.loading.delete(key);
        });
      for (const key of missing.keys()) this.loading.set(key, p);
      waits.add(p);
    }
    await Promise.all(waits);
  }

  /** Forgets everything (after a failed commit the database is the truth again). */
  reset(): void {
    this.epoch += 1;
    this.entries.clear();
  }

  /** Copies of the balances in memory. */
  loaded(): (BalanceRef & { available: bigint; held: bigint })[] {
    return [...this.entries.values()].map(({ accountPublicId: _, ...e }) => e);
  }

  get(ref: BalanceRef): { available: bigint; held: bigint } {
    const e = this.entries.get(keyOf(ref));
    if (!e) throw new Error(`balance ${keyOf(ref)} used before load()`);
    return e;
  }

  /**
   * What of `ref`'s available may leave its account now: all of it, less what of the
   * account's deposit lock in the asset its other ledger does not cover. A ledger not in
   * memory counts as empty, which can only refuse more.
   */
  spendable(ref: BalanceRef, nowMs: number): bigint {
    const available = this.get(ref).available;
    const locked = this.locks?.locked(ref.accountId, ref.assetId, nowMs).amount ?? 0n;
    if (locked === 0n) return available;
    const short = locked - (this.entries.get(keyOf(otherLedger(ref)))?.available ?? 0n);
    if (short <= 0n) return available;
    return available > short ? available - short : 0n;
  }

  /**
   * Refuses (DEPOSIT_NOT_FINAL) taking `amount` off `ref`'s account when its available could
   * pay it but a deposit not yet final must stay; a plain shortfall is left to the caller.
   */
  requireUnlocked(ref: BalanceRef, amount: bigint, nowMs: number, fieldPath: string): void {
    if (amount <= 0n || amount > this.get(ref).available || amount <= this.spendable(ref, nowMs)) return;
    throw this.notFinal(ref, nowMs, fieldPath);
  }

  /**
   * The same for a transfer: per account and asset, what its legs take off the account's
   * available (a move between its own ledgers takes nothing) must leave the lock covered.
   */
  requireUnlockedTransfer(debits: LegSpec[], credits: LegSpec[], nowMs: number, fieldPath: string): void {
    if (!this.locks) return;
    const net = new Map<string, { ref: BalanceRef; delta: bigint }>();
    const add = (ref: BalanceRef, delta: bigint) => {
      const key = `${ref.accountId}:${ref.assetId}`;
      const e = net.get(key) ?? { ref, delta: 0n };
      e.delta += delta;
      net.set(key, e);
    };
    for (const d of debits) if (d.debitFrom !== 'held') add(d.ref, -d.amount);
    for (const c of credits) add(c.ref, c.amount);
    for (const { ref, delta } of net.values()) {
      if (delta >= 0n) continue;
      const locked = this.locks.locked(ref.accountId, ref.assetId, nowMs).amount;
      if (locked === 0n) continue;
      const kept = (this.entries.get(keyOf(ref))?.available ?? 0n) + (this.entries.get(keyOf(otherLedger(ref)))?.available ?? 0n);
      if (kept + delta < locked) throw this.notFinal(ref, nowMs, fieldPath);
    }
  }

  private notFinal(ref: BalanceRef, nowMs: number, fieldPath: string): ApiError {
    const { amount, untilMs } = this.locks?.locked(ref.accountId, ref.assetId, nowMs) ?? { amount: 0n, untilMs: 0 };
    return errors.DEPOSIT_NOT_FINAL(`${formatScaled(amount, 18)} of this asset comes from deposits not yet final on their chain; it must stay on the account until ${new Date(untilMs).toISOString()}`, {
      violations: [{ fieldPath, message: 'exceeds the funds whose deposits are final on chain', ruleId: 'deposit-not-final' }],
    });
  }

  /** Moves `amount` from available to held; false (and nothing changes) when short. */
  hold(ws: WriteSet, ref: BalanceRef, amount: bigint): boolean {
    const e = this.get(ref) as Entry;
    if (amount <= 0n) return amount === 0n;
    if (e.available < amount) return false;
    e.available -= amount;
    e.held += amount;
    changed(ws, e, -amount, amount);
    return true;
  }

  release(ws: WriteSet, ref: BalanceRef, amount: bigint): void {
    if (amount <= 0n) return;
    const e = this.get(ref) as Entry;
    e.held -= amount;
    e.available += amount;
    changed(ws, e, amount, -amount);
  }

  /**
   * Posts one double-entry transfer: credits then debits, each leg carrying the
   * balance (available + held) after it. Debit and credit amounts must balance per asset.
   */
  post(
    ws: WriteSet,
    transfer: { id: bigint; code: TransferCode; timestampUs: bigint; symbolId?: number; matchId?: bigint; memo?: string; flowId?: bigint },
    debits: LegSpec[],
    credits: LegSpec[],
  ): TransferRow {
    const sum = new Map<number, bigint>();
    for (const d of debits) sum.set(d.ref.assetId, (sum.get(d.ref.assetId) ?? 0n) + d.amount);
    for (const c of credits) sum.set(c.ref.assetId, (sum.get(c.ref.assetId) ?? 0n) - c.amount);
    for (const [asset, diff] of sum) if (diff !== 0n) throw new Error(`transfer ${transfer.id} does not balance for asset ${asset}`);
    const legs: LegRow[] = [];
    const counterparty = (legsOf: LegSpec[]) => (legsOf.length === 1 ? (legsOf[0] as LegSpec) : undefined);
    // Credits first, so fees taken from proceeds never show a negative balance in between.
    for (const c of credits) {
      if (c.amount === 0n) continue;
      const e = this.get(c.ref) as Entry;
      e.available += c.amount;
      changed(ws, e, c.amount, 0n);
      const other = counterparty(debits);
      legs.push({
        accountId: c.ref.accountId,
        ledgerAccount: c.ref.ledgerAccount,
        assetId: c.ref.assetId,
        amount: c.amount,
        isDebit: false,
        balanceAfter: e.available + e.held,
        transferCode: c.code ?? transfer.code,
        sourceAccountId: other?.ref.accountId ?? null,
        sourceKind: other ? (other.kind ?? sideKind(other.ref)) : null,
        destinationAccountId: c.ref.accountId,
        destinationKind: c.kind ?? sideKind(c.ref),
      });
    }
    for (const d of debits) {
      if (d.amount === 0n) continue;
      const e = this.get(d.ref) as Entry;
      if (d.debitFrom === 'held') e.held -= d.amount;
      else e.available -= d.amount;
      changed(ws, e, d.debitFrom === 'held' ? 0n : -d.amount, d.debitFrom === 'held' ? -d.amount : 0n);
      const other = counterparty(credits);
      legs.push({
        accountId: d.ref.accountId,
        ledgerAccount: d.ref.ledgerAccount,
        assetId: d.ref.assetId,
        amount: d.amount,
        isDebit: true,
        balanceAfter: e.available + e.held,
        transferCode: d.code ?? transfer.code,
        sourceAccountId: d.ref.accountId,
        sourceKind: d.kind ?? sideKind(d.ref),
        destinationAccountId: other?.ref.accountId ?? null,
        destinationKind: other ? (other.kind ?? sideKind(other.ref)) : null,
      });
    }
    const row: TransferRow = {
      id: transfer.id,
      transferCode: transfer.code,
      timestampUs: transfer.timestampUs,
      symbolId: transfer.symbolId ?? null,
      matchId: transfer.matchId ?? null,
      memo: transfer.memo ?? null,
      flowId: transfer.flowId ?? null,
      legs,
    };
    ws.transfers.push(row);
    return row;
  }
}

/** Records a change of `e` (already applied to it): its delta for the projection, and the balance after it for the stream. */
function changed(ws: WriteSet, e: Entry, available: bigint, held: bigint): void {
  ws.balance(e.accountId, e.ledgerAccount, e.assetId, available, held);
  if (e.accountPublicId !== null) ws.balanceAfter({ accountId: e.accountId, accountPublicId: e.accountPublicId, ledgerAccount: e.ledgerAccount, assetId: e.assetId, available: e.available, held: e.held });
}

function sideKind(ref: BalanceRef): TransferSideKind {
  return ref.ledgerAccount === 'FUNDING' ? 'FUNDING_ACCOUNT' : 'TRADING_ACCOUNT';
}
