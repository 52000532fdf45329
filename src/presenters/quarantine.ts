import { z } from 'zod';
import type { QuarantinedEntry, ReapplyOutcome } from '../services/trading/index.ts';
import { int64String, rfc3339, toRfc3339 } from './scalars.ts';

/** A parked journal entry with the public ids of the accounts it touches (docs/scaling.md, "Quarantine"). */
export type QuarantinedEntryView = Pick<QuarantinedEntry, 'seq' | 'error' | 'sqlState' | 'behindSeq' | 'parkedAt'> & { accounts: string[] };

const sqlState = z.string().optional().describe('The SQLSTATE of the failure, when PostgreSQL gave one');

const quarantinedEntrySchema = z.strictObject({
  seq: int64String.describe('Journal sequence number'),
  error: z.string(),
  sqlState,
  behindSeq: int64String.optional().describe('The parked entry it waits behind; absent for one that failed itself'),
  parkedAt: rfc3339,
  accounts: z.array(z.string()),
});

/** GET /operator/v1/projection/quarantine. */
export const quarantinedEntriesSchema = z.strictObject({ entries: z.array(quarantinedEntrySchema) });

export function presentQuarantinedEntries(entries: QuarantinedEntryView[]): z.infer<typeof quarantinedEntriesSchema> {
  return {
    entries: entries.map((e) => ({
      seq: e.seq.toString(),
      error: e.error,
      ...(e.sqlState !== null ? { sqlState: e.sqlState } : {}),
      ...(e.behindSeq !== null ? { behindSeq: e.behindSeq.toString() } : {}),
      parkedAt: toRfc3339(e.parkedAt),
      accounts: e.accounts,
    })),
  };
}

/** POST /operator/v1/projection/quarantine/{seq}/reapply: the entries projected, and the one that failed again, if any. */
export const reapplyOutcomeSchema = z.strictObject({
  reapplied: z.array(int64String),
  failed: z.strictObject({ seq: int64String, error: z.string(), sqlState }).optional(),
});

export function presentReapplyOutcome(outcome: ReapplyOutcome): z.infer<typeof reapplyOutcomeSchema> {
  const { failed } = outcome;
  return {
    reapplied: outcome.reapplied.map(String),
    ...(failed ? { failed: { seq: failed.seq.toString(), error: failed.error, ...(failed.sqlState !== null ? { sqlState: failed.sqlState } : {}) } } : {}),
  };
}
