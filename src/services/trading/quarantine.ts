import { switchKey, type WriteSet } from './writeSet.ts';

/**
 * The projection's quarantine (docs/scaling.md, "Quarantine"): which journal entries the
 * read tables cannot take, found by bisecting a failing batch, and which later entries
 * must wait behind them. Pure: the projector supplies the statement that applies a plan.
 */

/** The rows an entry writes, as keys, and the accounts those rows belong to. */
export interface EntryFootprint {
  keys: Set<string>;
  accounts: Set<bigint>;
}

/**
 * Keys name the rows whose final state depends on the order entries are applied in:
 * orders and their legs and trades, triggers and their events, client order id
 * reservations, dead-man switches, withdrawals and flows (each written as its latest
 * version), and the balances and ledger legs of user accounts (deltas that a later
 * `balanceAfter` builds on). Two rows are left out on purpose: market sequences (each
 * entry writes the latest counters, a later entry's supersede them) and the balances of
 * system accounts (the fee account takes part in every trade: parking behind it would
 * park every later trade; its deltas add up whatever the order, and it is exact again
 * once the parked entries are re-applied).
 */
export function entryFootprint(ws: WriteSet, systemAccounts: ReadonlySet<bigint>): EntryFootprint {
  const keys = new Set<string>();
  const accounts = new Set<bigint>();
  const account = (id: bigint | null) => {
    if (id !== null && !systemAccounts.has(id)) accounts.add(id);
  };
  for (const o of ws.newOrders.values()) (keys.add(`o:${o.id}`), account(o.accountId));
  for (const o of ws.changedOrders.values()) (keys.add(`o:${o.id}`), account(o.accountId));
  for (const r of ws.riskLegs) keys.add(`o:${r.orderId}`);
  for (const t of ws.trades) (keys.add(`o:${t.orderId}`), account(t.accountId));
  for (const t of ws.triggers.values()) (keys.add(`g:${t.id}`), account(t.accountId));
  for (const e of ws.triggerEvents) (keys.add(`g:${e.triggerId}`), account(e.accountId));
  for (const b of ws.balances.values()) {
    if (systemAccounts.has(b.accountId)) continue;
    keys.add(`b:${b.accountId}:${b.ledgerAccount}:${b.assetId}`);
    account(b.accountId);
  }
  for (const t of ws.transfers) {
    if (t.flowId !== null) keys.add(`f:${t.flowId}`);
    for (const l of t.legs) {
      if (systemAccounts.has(l.accountId)) continue;
      keys.add(`b:${l.accountId}:${l.ledgerAccount}:${l.assetId}`);
      account(l.accountId);
    }
  }
  for (const c of ws.clientOrderIds) (keys.add(`c:${c.accountId}:${storableText(c.clientOrderId)}`), account(c.accountId));
  for (const s of ws.switches.values()) (keys.add(`d:${switchKey(s)}`), account(s.accountId));
  for (const w of ws.withdrawIntents.values()) (keys.add(`w:${w.id}`), keys.add(`f:${w.flowId}`), account(w.accountId));
  for (const w of ws.withdrawStatuses.values()) keys.add(`w:${w.id}`);
  for (const f of ws.flows) (keys.add(`f:${f.id}`), account(f.ownerAccountId));
  for (const f of ws.flowUpdates.values()) keys.add(`f:${f.id}`);
  return { keys, accounts };
}

/**
 * Text PostgreSQL can store: U+0000 and lone surrogates become U+FFFD. A client's text (a
 * client order id) can be the very value that made its entry fail, and the quarantine row
 * must still be written.
 */
export const storableText = (text: string) =>
  text.replace(/\u0000/g, '\uFFFD').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/** How a failed statement is treated. */
export type FailureKind = 'transient' | 'deterministic' | 'unknown';

/** SQLSTATE classes a retry cannot change: data exception, integrity violation, program limit. */
const DETERMINISTIC_CLASSES = new Set(['22', '23', '54']);
/** Retrying can succeed: the server, the connection or a concurrent transaction was in the way. */
const TRANSIENT_STATES = new Set(['40001', '40P01', '57014', '57P01', '57P02', '57P03', '55P03', '53300', '53400', '53200', '53100']);
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** The SQLSTATE of a driver error (pg and PGlite raise it as `code`), if it has one. */
export function sqlStateOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export function classifyFailure(err: unknown): FailureKind {
  if ((err as { transient?: unknown } | null)?.transient === true) return 'transient';
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return 'transient';
  const state = sqlStateOf(err);
  if (state !== undefined) {
    if (DETERMINISTIC_CLASSES.has(state.slice(0, 2))) return 'deterministic';
    if (state.startsWith('08') || TRANSIENT_STATES.has(state)) return 'transient';
    return 'unknown';
  }
  const message = (err as { message?: unknown } | null)?.message;
  if (typeof message === 'string' && /Connection terminated|not queryable|Connection ended|timeout/i.test(message)) return 'transient';
  return 'unknown';
}

/** An entry of the journal, as far as the quarantine is concerned. */
export interface Footprinted {
  seq: bigint;
  footprint: EntryFootprint;
}

/** What one statement does: apply `apply`, park `behind` and `failed`, and move the watermark past all of them. */
export interface BatchPlan<E extends Footprinted> {
  apply: E[];
  /** Entries parked behind an earlier parked entry, with the seq of the one they wait behind. */
  behind: { entry: E; behindSeq: bigint }[];
  /** An entry parked because it failed alone (then the plan holds nothing else). */
  failed?: { entry: E; err: unknown };
}

/** The keys of the parked entries, each with the entry that parked it first. */
export class ParkedKeys {
  private readonly owner = new Map<string, bigint>();
  private readonly accounts = new Set<bigint>();

  get size(): number {
    return this.owner.size;
  }

  /** The earliest parked entry the footprint touches, if any. */
  blocking(footprint: EntryFootprint): bigint | undefined {
    let first: bigint | undefined;
    for (const k of footprint.keys) {
      const s = this.owner.get(k);
      if (s !== undefined && (first === undefined || s < first)) first = s;
    }
    return first;
  }

  add(seq: bigint, footprint: EntryFootprint): void {
    for (const k of footprint.keys) if (!this.owner.has(k)) this.owner.set(k, seq);
    for (const a of footprint.accounts) this.accounts.add(a);
  }

  touchesAccount(accountIds: readonly bigint[]): boolean {
    return accountIds.some((a) => this.accounts.has(a));
  }

  clone(): ParkedKeys {
    const c = new ParkedKeys();
    for (const [k, s] of this.owner) c.owner.set(k, s);
    for (const a of this.accounts) c.accounts.add(a);
    return c;
  }
}

/** Splits consecutive entries into those to apply and those parked behind `parked` (updated as entries park). */
export function planBatch<E extends Footprinted>(entries: readonly E[], parked: ParkedKeys): BatchPlan<E> {
  const plan: BatchPlan<E> = { apply: [], behind: [] };
  for (const entry of entries) {
    // Nothing parked (the normal case): no entry's footprint is needed.
    const behindSeq = parked.size === 0 ? undefined : parked.blocking(entry.footprint);
    if (behindSeq === undefined) {
      plan.apply.push(entry);
    } else {
      plan.behind.push({ entry, behindSeq });
      parked.add(entry.seq, entry.footprint);
    }
  }
  return plan;
}

/** Runs one plan as one statement (atomic: all of it or nothing); throws what the database raised. */
export type RunPlan<E extends Footprinted> = (plan: BatchPlan<E>) => Promise<void>;

export interface ProjectOptions {
  /** How many times a single entry whose failure is neither transient nor deterministic is tried before it is parked. */
  unknownAttempts: number;
  /** Waits between those tries. */
  pause(attempt: number): Promise<void>;
}

/**
 * Applies consecutive entries (the first right after the watermark), parking what cannot
 * be applied: a deterministic failure of a batch is narrowed by applying its halves in
 * order, down to the one entry that fails alone. Transient failures are thrown, for the
 * caller to retry the whole range later. `parked` is updated as plans succeed.
 */
export async function projectRange<E extends Footprinted>(entries: readonly E[], parked: ParkedKeys, run: RunPlan<E>, options: ProjectOptions): Promise<void> {
  if (entries.length === 0) return;
  const trial = parked.clone();
  const plan = planBatch(entries, trial);
  try {
    await run(plan);
    for (const { entry } of plan.behind) parked.add(entry.seq, entry.footprint);
    return;
  } catch (err) {
    const kind = classifyFailure(err);
    if (kind === 'transient') throw err;
    if (plan.apply.length === 0) throw err;
    if (entries.length > 1) {
      const mid = Math.ceil(entries.length / 2);
      await projectRange(entries.slice(0, mid), parked, run, options);
      await projectRange(entries.slice(mid), parked, run, options);
      return;
    }
    const entry = entries[0] as E;
    let last = err;
    if (kind === 'unknown') {
      // Parked only if the failure repeats on the entry alone: anything else may pass on a retry.
      for (let attempt = 1; attempt < options.unknownAttempts; attempt++) {
        await options.pause(attempt);
        try {
          await run({ apply: [entry], behind: [] });
          return;
        } catch (again) {
          if (classifyFailure(again) === 'transient') throw again;
          last = again;
        }
      }
    }
    await run({ apply: [], behind: [], failed: { entry, err: last } });
    parked.add(entry.seq, entry.footprint);
  }
}

/** A parked entry as the re-apply plan sees it. */
export interface ParkedEntry {
  seq: bigint;
  footprint: EntryFootprint;
}

/**
 * The entries a re-apply of `seq` projects, in sequence order: `seq` itself and every
 * later parked entry that waits (directly or through another) on it and on nothing else
 * still parked. Undefined when `seq` itself waits behind an earlier parked entry: that one
 * is to be re-applied first.
 */
export function reapplyPlan<P extends ParkedEntry>(parkedEntries: readonly P[], seq: bigint): P[] | undefined {
  const sorted = [...parkedEntries].sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
  const staying = new Set<string>();
  const going = new Set<string>();
  const out: P[] = [];
  const touches = (keys: Set<string>, set: Set<string>) => {
    for (const k of keys) if (set.has(k)) return true;
    return false;
  };
  for (const e of sorted) {
    const keys = e.footprint.keys;
    if (e.seq === seq) {
      if (touches(keys, staying)) return undefined;
      out.push(e);
      for (const k of keys) going.add(k);
    } else if (e.seq > seq && out.length > 0 && !touches(keys, staying) && touches(keys, going)) {
      out.push(e);
      for (const k of keys) going.add(k);
    } else {
      for (const k of keys) staying.add(k);
    }
  }
  return out.length > 0 ? out : undefined;
}
