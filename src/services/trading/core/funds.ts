import type { Clock } from '../../../infra/clock.ts';
import type { BalanceBook, BalanceRef } from '../balances.ts';
import type { DepositLocks } from '../depositLocks.ts';
import type { FlowBook, FlowJob, FlowMove } from '../flowJobs.ts';
import type { EngineIds, LedgerJob } from '../engineTypes.ts';
import { insufficientBalance } from '../errors.ts';
import type { Sequencer } from '../sequencer.ts';
import type { PreparedWithdrawal, WithdrawalBook, WithdrawHold, WithdrawSubmission } from '../withdrawals.ts';
import type { WithdrawStatusRow, WriteSet } from '../writeSet.ts';

/**
 * Ledger transfers and withdrawals: jobs on the same sequencer and balances as trades,
 * so a credit, a transfer or a withdrawal hold is ordered with every order it funds.
 */
export class Funds {
  constructor(private readonly deps: { clock: Clock; sequencer: Sequencer; balances: BalanceBook; locks: DepositLocks; withdrawals: WithdrawalBook; flows: FlowBook; ids: EngineIds }) {}

  /** Posts ledger transfers (credits, internal transfers) through the same sequencer and balances as trades. */
  transfer<T>(refs: BalanceRef[], run: (job: LedgerJob) => T): Promise<T> {
    return this.deps.sequencer.submitAfter(
      () => this.deps.balances.load(refs),
      (ws) => run(this.ledgerJob(ws)),
    );
  }

  /**
   * A chain flow's step as one job (flowJobs.ts): it applies only over the flow version it
   * names, with the transfers and locks that go with it, in one journal entry.
   */
  flowJob<P, T>(refs: BalanceRef[], prepare: (flows: FlowBook) => Promise<P>, run: (job: FlowJob, prepared: P) => T): Promise<T> {
    let prepared: P;
    return this.deps.sequencer.submitAfter(
      async () => ([, prepared] = await Promise.all([this.deps.balances.load(refs), prepare(this.deps.flows)])),
      (ws) => run({ ...this.ledgerJob(ws), ...this.deps.flows.writer(ws) }, prepared),
    );
  }

  private ledgerJob(ws: WriteSet, fieldPath = 'amount'): LedgerJob {
    // Read inside the job, so legs listed by time are listed in the order they applied.
    const nowUs = this.deps.clock.nowNs() / 1000n;
    const nowMs = Number(nowUs / 1000n);
    return {
      post: (transfer, debits, credits) => (this.deps.balances.requireUnlockedTransfer(debits, credits, nowMs, fieldPath), this.deps.balances.post(ws, { id: this.deps.ids.transfers.take(), code: transfer.code, timestampUs: nowUs, ...(transfer.memo !== undefined ? { memo: transfer.memo } : {}), ...(transfer.flowId !== undefined ? { flowId: transfer.flowId } : {}) }, debits, credits)),
      balance: (ref) => this.deps.balances.get(ref),
      lockDeposit: ({ ref, amount, serviceChainId, flowId }) => this.deps.locks.add(ref.accountId, ref.assetId, amount, serviceChainId, flowId, nowMs),
      nowUs,
    };
  }

  /**
   * Accepts a withdrawal from Trading (spec 4.7): holds its amount and fee in `hold`, or,
   * with `settle`, moves it at once; and records the intent and its flow, all in one
   * journal entry. Its idempotency key with the same payload answers the intent it
   * created; with another payload, or a nonce used before, it is refused.
   */
  submitWithdrawal(s: WithdrawSubmission, move: { hold: BalanceRef; refs: BalanceRef[]; settle?: (job: LedgerJob, flowId: bigint) => void }): Promise<{ intentId: string; replayed: boolean }> {
    let prepared: PreparedWithdrawal | undefined;
    return this.deps.sequencer.submitAfter(
      async () => {
        [, prepared] = await Promise.all([this.deps.balances.load([move.hold, ...move.refs]), this.deps.withdrawals.prepare(s)]);
      },
      (ws) => {
        const ids = prepared as PreparedWithdrawal;
        const existing = this.deps.withdrawals.existing(s, ids);
        if (existing !== undefined) return { intentId: existing, replayed: true };
        const total = s.amount + s.fee;
        let hold: WithdrawHold | undefined;
        if (move.settle) {
          if (this.deps.balances.get(move.hold).available < total) throw insufficientBalance('payload.amount');
          move.settle(this.ledgerJob(ws, 'payload.amount'), ids.flowId);
        } else {
          this.deps.balances.requireUnlocked(move.hold, total, this.deps.clock.now().getTime(), 'payload.amount');
          if (!this.deps.balances.hold(ws, move.hold, total)) throw insufficientBalance('payload.amount');
          hold = { ref: move.hold, held: total };
        }
        const { flow, ...intent } = s;
        this.deps.withdrawals.accept(ws, { ...intent, id: ids.intentId, flowId: ids.flowId }, hold, this.deps.clock.now().getTime());
        this.deps.flows.insert(ws, { ...flow, id: ids.flowId });
        return { intentId: s.publicId, replayed: false };
      },
    );
  }

  /**
   * Ends an accepted withdrawal: `settle` debits its hold (completion), else the hold is
   * released; the intent takes `end`'s status in the same entry. False when it had ended
   * already, so a step repeated after a crash changes nothing; with `onlyUnsubmitted` (a
   * reject, a cancel, an expiry) also false once it is marked for broadcast.
   */
  endWithdrawal(end: Omit<WithdrawStatusRow, 'updatedAt'>, settle?: { refs: BalanceRef[]; run: (job: LedgerJob, hold: WithdrawHold) => void }, onlyUnsubmitted = false, flow?: FlowMove): Promise<boolean> {
    return this.deps.sequencer.submitAfter(
      async () => {
        const hold = this.deps.withdrawals.holdOf(end.id);
        if (hold) await this.deps.balances.load([hold.ref, ...(settle?.refs ?? [])]);
      },
      (ws) => {
        const hold = this.deps.withdrawals.holdOf(end.id);
        if (!hold || (onlyUnsubmitted && this.deps.withdrawals.isSubmitted(end.id)) || (flow && !this.deps.flows.can(flow))) return false;
        if (settle) settle.run(this.ledgerJob(ws), hold);
        else this.deps.balances.release(ws, hold.ref, hold.held);
        this.deps.withdrawals.end(ws, { ...end, updatedAt: this.deps.clock.now() });
        if (flow) this.deps.flows.move(ws, flow);
        return true;
      },
    );
  }

  /**
   * Marks an open withdrawal for broadcast (SUBMITTED), durable in the journal before the
   * chain sees it: from then on a reject or cancel cannot release its hold. True when it is
   * marked (now or before), false when it had ended: then it must not be sent.
   */
  markWithdrawalSubmitted(intentId: bigint, flow?: FlowMove): Promise<boolean> {
    return this.deps.sequencer.submit((ws) => {
      if (!this.deps.withdrawals.holdOf(intentId) || (flow && !this.deps.flows.can(flow))) return false;
      if (!this.deps.withdrawals.isSubmitted(intentId)) this.deps.withdrawals.submit(ws, intentId, this.deps.clock.now());
      if (flow) this.deps.flows.move(ws, flow);
      return true;
    });
  }
}
