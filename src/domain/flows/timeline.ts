/** Spec 2.12 `progressTimeline` item status. */
export type StepStatus = 'COMPLETED' | 'IN_PROGRESS' | 'PENDING' | 'FAILED' | 'SKIPPED';

/**
 * Every step of a flow kind with its status: those before the current one completed, the
 * current one in progress, failed or completed, the rest pending, or skipped once the flow
 * ended without them; and each step's expected duration.
 */
export function timeline<S extends string>(steps: readonly S[], flow: { step: S; state: string; terminalAtMs: number | null }, expectedMs: (step: S) => number) {
  const current = steps.indexOf(flow.step);
  const ended = flow.terminalAtMs !== null;
  const completed = flow.state === 'COMPLETED';
  return steps.map((step, i) => {
    let status: StepStatus;
    if (i < current) status = 'COMPLETED';
    else if (i > current) status = ended ? (completed ? 'COMPLETED' : 'SKIPPED') : 'PENDING';
    else status = completed ? 'COMPLETED' : ended ? 'FAILED' : 'IN_PROGRESS';
    return { sequence: i + 1, step, status, expectedDurationMs: expectedMs(step) };
  });
}

/** A time that never goes back: `nowMs`, or the flow's last change if the clock reads earlier. */
export const later = (flow: { updatedAtMs: number }, nowMs: number): number => (nowMs > flow.updatedAtMs ? nowMs : flow.updatedAtMs);
