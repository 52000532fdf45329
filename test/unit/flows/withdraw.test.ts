import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  approvedWithdraw,
  approveWithdraw,
  cancelWithdraw,
  catchUpWithdraw,
  confirmWithdraw,
  droppedWithdraw,
  EXECUTION_WINDOW_MS,
  EXTERNAL_STEPS,
  expireWithdraw,
  isTerminalWithdraw,
  readyToSettle,
  rejectWithdraw,
  settledWithdraw,
  submitWithdraw,
  VALIDATORS,
  withdrawTimeline,
  type WithdrawFlow,
} from '../../../src/domain/flows/withdraw.ts';

const dt = fc.integer({ min: -1000, max: 1000 });
const event = fc.oneof(
  fc.record({ kind: fc.constant('approve' as const), dt }),
  fc.record({ kind: fc.constant('reject' as const), dt }),
  fc.record({ kind: fc.constant('confirm' as const), n: fc.integer({ min: 0, max: 20 }), dt }),
  fc.record({ kind: fc.constant('settle' as const), dt }),
  fc.record({ kind: fc.constant('drop' as const), dt }),
  fc.record({ kind: fc.constant('cancel' as const), dt }),
  fc.record({ kind: fc.constant('approved' as const), dt }),
  // A jump far enough to pass the execution window.
  fc.record({ kind: fc.constant('expire' as const), dt: fc.constantFrom(0, EXECUTION_WINDOW_MS) }),
);

function apply(flow: WithdrawFlow, e: { kind: string; n?: number }, now: number): WithdrawFlow {
  switch (e.kind) {
    case 'approve':
      return approveWithdraw(flow, now);
    case 'reject':
      return rejectWithdraw(flow, now);
    case 'confirm':
      return confirmWithdraw(flow, e.n as number, now);
    case 'settle':
      return settledWithdraw(flow, now);
    case 'drop':
      return droppedWithdraw(flow, now);
    case 'cancel':
      return cancelWithdraw(flow, now);
    case 'approved':
      return approvedWithdraw(flow, now);
    default:
      return expireWithdraw(flow, now);
  }
}

describe('the withdraw flow to an external chain', () => {
  it('never skips a step, never leaves a terminal state, never moves its times backwards, and settles only approved and confirmed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(event, { maxLength: 40 }), (required, events) => {
        let now = 1_000_000;
        let flow = submitWithdraw({ kind: 'WITHDRAW_TO_EXTERNAL_CHAIN', requiredConfirmations: required, nowMs: now });
        expect(flow).toMatchObject({ state: 'PENDING_VALIDATION', step: 'VALIDATION', feeStatus: 'LOCKED' });
        for (const e of events) {
          now += e.dt;
          const before = flow;
          flow = apply(flow, e, now);
          if (isTerminalWithdraw(before)) expect(flow).toBe(before);
          const moved = EXTERNAL_STEPS.indexOf(flow.step) - EXTERNAL_STEPS.indexOf(before.step);
          expect(moved).toBeGreaterThanOrEqual(0);
          expect(moved).toBeLessThanOrEqual(1);
          expect(flow.updatedAtMs).toBeGreaterThanOrEqual(before.updatedAtMs);
          expect(flow.confirmations).toBeGreaterThanOrEqual(before.confirmations);
          if (flow.state === 'COMPLETED') {
            expect(flow.approvals).toBeGreaterThanOrEqual(VALIDATORS.requiredApprovals);
            expect(flow.confirmations).toBeGreaterThanOrEqual(required);
          }
          // The fee is locked while open, settled only on completion, refunded on every other end.
          expect(flow.feeStatus).toBe(flow.terminalAtMs === null ? 'LOCKED' : flow.state === 'COMPLETED' ? 'SETTLED' : 'REFUNDED');
          if (flow.terminalAtMs !== null) expect(flow.reason === null).toBe(flow.state === 'COMPLETED');
        }
      }),
    );
  });

  it('catching up with its intent ends it as the intent ended, and only once', () => {
    fc.assert(
      fc.property(fc.constantFrom('COMPLETED', 'REJECTED', 'EXPIRED', 'CANCELED', 'FAILED', 'DROPPED') as fc.Arbitrary<'COMPLETED' | 'REJECTED' | 'EXPIRED' | 'CANCELED' | 'FAILED' | 'DROPPED'>, fc.integer({ min: -5, max: 5 }), (intent, dt) => {
        const open = approveWithdraw(submitWithdraw({ kind: 'WITHDRAW_TO_EXTERNAL_CHAIN', requiredConfirmations: 3, nowMs: 100 }), 110);
        const ended = catchUpWithdraw(open, intent, 110 + dt);
        expect(isTerminalWithdraw(ended)).toBe(true);
        // A canceled intent fails its flow with the owner's reason.
        expect([ended.state, ended.reason === 'USER_CANCELED']).toEqual(intent === 'CANCELED' ? ['FAILED', true] : [intent, false]);
        expect(ended.updatedAtMs).toBeGreaterThanOrEqual(open.updatedAtMs);
        expect(catchUpWithdraw(ended, 'COMPLETED', 500)).toBe(ended);
      }),
    );
  });

  it('walks validation, destination and completion in its timeline; a rejection fails validation and skips the rest', () => {
    const expected = () => 1000;
    let flow = submitWithdraw({ kind: 'WITHDRAW_TO_EXTERNAL_CHAIN', requiredConfirmations: 2, nowMs: 0 });
    expect(withdrawTimeline(flow, expected).map((s) => s.status)).toEqual(['COMPLETED', 'IN_PROGRESS', 'PENDING', 'PENDING']);
    flow = approveWithdraw(approveWithdraw(flow, 1), 2);
    expect(flow.state).toBe('DESTINATION_CONFIRMING');
    flow = confirmWithdraw(flow, 2, 3);
    expect(readyToSettle(flow)).toBe(true);
    flow = settledWithdraw(flow, 4);
    expect(withdrawTimeline(flow, expected).map((s) => s.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED']);
    const rejected = rejectWithdraw(rejectWithdraw(submitWithdraw({ kind: 'WITHDRAW_TO_EXTERNAL_CHAIN', requiredConfirmations: 2, nowMs: 0 }), 1), 2);
    expect(rejected).toMatchObject({ state: 'REJECTED', reason: 'ZIPPER_VALIDATION_REJECTED', feeStatus: 'REFUNDED' });
    expect(withdrawTimeline(rejected, expected).map((s) => s.status)).toEqual(['COMPLETED', 'FAILED', 'SKIPPED', 'SKIPPED']);
  });

  it('expires only once the execution window has passed without a broadcast', () => {
    const flow = submitWithdraw({ kind: 'WITHDRAW_TO_EXTERNAL_CHAIN', requiredConfirmations: 2, nowMs: 0 });
    expect(expireWithdraw(flow, EXECUTION_WINDOW_MS - 1)).toBe(flow);
    expect(expireWithdraw(flow, EXECUTION_WINDOW_MS)).toMatchObject({ state: 'EXPIRED', reason: 'DEADLINE_EXPIRED' });
    const broadcast = approveWithdraw(approveWithdraw(flow, 1), 2);
    expect(expireWithdraw(broadcast, 10 * EXECUTION_WINDOW_MS)).toBe(broadcast);
  });
});

describe('cancel and the broadcast recovered after a crash', () => {
  it('a cancel ends only a withdrawal not yet broadcast, failing it with USER_CANCELED and refunding its fee', () => {
    const pending = approveWithdraw(submitWithdraw({ kind: 'WITHDRAW_TO_EXTERNAL_CHAIN', requiredConfirmations: 2, nowMs: 0 }), 1);
    expect(cancelWithdraw(pending, 2)).toMatchObject({ state: 'FAILED', reason: 'USER_CANCELED', feeStatus: 'REFUNDED', terminalAtMs: 2 });
    const broadcast = approveWithdraw(pending, 2);
    expect(cancelWithdraw(broadcast, 3)).toBe(broadcast);
  });

  it('a withdrawal marked for broadcast before a crash takes its approvals and the destination step, whatever approvals its row kept', () => {
    for (const approvals of [0, 1]) {
      let flow = submitWithdraw({ kind: 'WITHDRAW_TO_EXTERNAL_CHAIN', requiredConfirmations: 2, nowMs: 0 });
      for (let i = 0; i < approvals; i++) flow = approveWithdraw(flow, 1);
      expect(approvedWithdraw(flow, 5)).toMatchObject({ state: 'DESTINATION_CONFIRMING', step: 'DESTINATION', approvals: VALIDATORS.requiredApprovals, stepStartedAtMs: 5, feeStatus: 'LOCKED' });
    }
    const done = settledWithdraw(confirmWithdraw(approveWithdraw(approveWithdraw(submitWithdraw({ kind: 'WITHDRAW_TO_EXTERNAL_CHAIN', requiredConfirmations: 1, nowMs: 0 }), 1), 2), 1, 3), 4);
    expect(approvedWithdraw(done, 5)).toBe(done);
  });
});

describe('the withdraw flow to Funding', () => {
  it('is complete when accepted: every step done, the fee settled', () => {
    const flow = submitWithdraw({ kind: 'WITHDRAW_TO_FUNDING', requiredConfirmations: 0, nowMs: 5 });
    expect(flow).toMatchObject({ state: 'COMPLETED', step: 'COMPLETE', feeStatus: 'SETTLED', terminalAtMs: 5 });
    expect(withdrawTimeline(flow, () => 0).map((s) => [s.step, s.status])).toEqual([['SOURCE', 'COMPLETED'], ['SETTLEMENT', 'COMPLETED'], ['COMPLETE', 'COMPLETED']]);
    expect(approveWithdraw(flow, 6)).toBe(flow);
  });
});
