import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { confirmDeposit, creditedDeposit, DEPOSIT_STEPS, depositTimeline, droppedDeposit, isTerminal, observeDeposit, type DepositFlow } from '../../../src/domain/flows/deposit.ts';

const event = fc.oneof(
  fc.record({ kind: fc.constant('confirm' as const), n: fc.integer({ min: 0, max: 20 }), dt: fc.integer({ min: -1000, max: 1000 }) }),
  fc.record({ kind: fc.constant('credit' as const), dt: fc.integer({ min: -1000, max: 1000 }) }),
  fc.record({ kind: fc.constant('drop' as const), dt: fc.integer({ min: -1000, max: 1000 }) }),
);

describe('the deposit flow', () => {
  it('never skips a step, never leaves a terminal state, never moves its times backwards, and credits only with enough confirmations', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: 12 }), fc.array(event, { maxLength: 30 }), (supported, belowMinimum, required, events) => {
        let now = 1_000_000;
        let flow: DepositFlow = observeDeposit({ supported, belowMinimum, requiredConfirmations: required, nowMs: now });
        if (!supported || belowMinimum) expect(flow).toMatchObject({ state: 'FAILED', reason: supported ? 'AMOUNT_BELOW_MINIMUM' : 'UNSUPPORTED_ASSET' });
        for (const e of events) {
          now += e.dt;
          const before = flow;
          flow = e.kind === 'confirm' ? confirmDeposit(flow, e.n, now) : e.kind === 'credit' ? creditedDeposit(flow, now) : droppedDeposit(flow, now);
          if (isTerminal(before)) expect(flow).toBe(before);
          expect(DEPOSIT_STEPS.indexOf(flow.step) - DEPOSIT_STEPS.indexOf(before.step)).toBeGreaterThanOrEqual(0);
          expect(DEPOSIT_STEPS.indexOf(flow.step) - DEPOSIT_STEPS.indexOf(before.step)).toBeLessThanOrEqual(1);
          expect(flow.updatedAtMs).toBeGreaterThanOrEqual(before.updatedAtMs);
          expect(flow.confirmations).toBeGreaterThanOrEqual(before.confirmations);
          if (flow.state === 'COMPLETED') expect(flow.confirmations).toBeGreaterThanOrEqual(required);
          if (flow.terminalAtMs !== null) expect(flow.terminalAtMs).toBeGreaterThanOrEqual(flow.startedAtMs);
        }
      }),
    );
  });

  it('shows every step in its timeline: done before the current one, pending after it', () => {
    const expected = () => 1000;
    let flow = observeDeposit({ supported: true, belowMinimum: false, requiredConfirmations: 2, nowMs: 0 });
    expect(depositTimeline(flow, expected).map((s) => s.status)).toEqual(['COMPLETED', 'IN_PROGRESS', 'PENDING', 'PENDING']);
    flow = confirmDeposit(flow, 2, 10);
    expect(depositTimeline(flow, expected).map((s) => s.status)).toEqual(['COMPLETED', 'COMPLETED', 'IN_PROGRESS', 'PENDING']);
    flow = creditedDeposit(flow, 20);
    expect(depositTimeline(flow, expected).map((s) => s.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED']);
    const failed = observeDeposit({ supported: false, belowMinimum: false, requiredConfirmations: 2, nowMs: 0 });
    expect(depositTimeline(failed, expected).map((s) => s.status)).toEqual(['FAILED', 'SKIPPED', 'SKIPPED', 'SKIPPED']);
  });
});
