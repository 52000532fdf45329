import type { SqlQueryable } from '../../infra/migrations.ts';
import {
  appendJournal,
  BALANCE_COLUMNS,
  FLOW_COLUMNS,
  FLOW_UPDATE_COLUMNS,
  ORDER_COLUMNS,
  RESERVATION_COLUMNS,
  RISK_LEG_COLUMNS,
  SEQUENCE_COLUMNS,
  SWITCH_COLUMNS,
  TRADE_COLUMNS,
  TRIGGER_COLUMNS,
  TRIGGER_EVENT_COLUMNS,
  TRANSFER_COLUMNS,
  WITHDRAW_INTENT_COLUMNS,
  WITHDRAW_STATUS_COLUMNS,
  type Columns,
  type EngineFence,
  type SqlType,
} from './persist.ts';
import { WriteSet, type BalanceAfterRow, type BookLevelRow, type LegRow, type OrderVersion, type TransferRow, type TriggerEventRow } from './writeSet.ts';

/**
 * The trading journal (docs/scaling.md): each committed group of the engine's work is one
 * row with a gap-free sequence number, and appending that row is the acknowledgement.
 * Everything else (the read tables, the private event streams, recovery) is derived from
 * these rows.
 *
 * An entry is the group's write set, row by row as arrays of values in the column order
 * the projection writes them (the same column lists), so one list says both what is
 * stored and how it is read back: bigints as decimal strings, times as epoch
 * milliseconds.
 */

/** Columns added to orders later: journaled after the account's public id, where entries written before them end. */
const ORIGIN_COLUMNS = new Set(['originScope', 'originTriggerId', 'originTriggerType', 'childSeq']);
const VERSION_COLUMNS: Columns<OrderVersion> = [
  ...(ORDER_COLUMNS.filter(([c]) => !ORIGIN_COLUMNS.has(c)) as Columns<OrderVersion>),
  ['accountPublicId', 'text'],
  ...(ORDER_COLUMNS.filter(([c]) => ORIGIN_COLUMNS.has(c)) as Columns<OrderVersion>),
];
const EVENT_COLUMNS: Columns<TriggerEventRow> = [...TRIGGER_EVENT_COLUMNS, ['triggerPublicId', 'text'], ['accountPublicId', 'text'], ['childOrderPublicId', 'text']];

const LEG_ROW_COLUMNS: Columns<LegRow> = [
  ['accountId', 'bigint'], ['ledgerAccount', '"LedgerAccount"'], ['assetId', 'int'], ['amount', 'numeric'], ['isDebit', 'boolean'],
  ['balanceAfter', 'numeric'], ['transferCode', '"TransferCode"'], ['sourceAccountId', 'bigint'], ['sourceKind', '"TransferSideKind"'],
  ['destinationAccountId', 'bigint'], ['destinationKind', '"TransferSideKind"'],
];

/** Not a table's columns: only the balance stream reads these. */
const BALANCE_AFTER_COLUMNS: Columns<BalanceAfterRow> = [
  ['accountId', 'bigint'], ['accountPublicId', 'text'], ['ledgerAccount', '"LedgerAccount"'], ['assetId', 'int'], ['available', 'numeric'], ['held', 'numeric'],
];

/** Not a table's columns: only the order-book stream reads these. */
const BOOK_LEVEL_COLUMNS: Columns<BookLevelRow> = [['symbolId', 'int'], ['sequence', 'bigint'], ['side', '"Side"'], ['price', 'bigint'], ['qty', 'bigint']];

type Wire = string | number | boolean | null;

function encodeRow<R>(columns: Columns<R>, row: R): Wire[] {
  const out: Wire[] = new Array(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const v = row[(columns[i] as [keyof R, SqlType])[0]] as unknown;
    out[i] = v === null || v === undefined ? null : typeof v === 'bigint' ? v.toString() : v instanceof Date ? v.getTime() : (v as Wire);
  }
  return out;
}

function decodeRow<R>(columns: Columns<R>, values: Wire[]): R {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) {
    const [name, type] = columns[i] as [string, SqlType];
    const v = values[i] ?? null;
    row[name] = v === null ? null : type === 'bigint' || type === 'numeric' ? BigInt(v as string) : type === 'timestamptz' ? new Date(v as number) : v;
  }
  return row as R;
}

interface EntryWire {
  v: Wire[][];
  n: string[];
  t: Wire[][];
  r: Wire[][];
  x: [Wire[], Wire[][]][];
  b: Wire[][];
  s: Wire[][];
  c: Wire[][];
  /** Dead-man switch changes; absent in entries written before they were journaled. */
  d?: Wire[][];
  /** Triggers created or changed, and their events; absent in entries written before triggers. */
  g?: Wire[][];
  e?: Wire[][];
  /** Withdrawals accepted (with their flows) and ended; absent in entries written before withdrawals. */
  w?: Wire[][];
  f?: Wire[][];
  u?: Wire[][];
  /** Flows moved on; absent in entries written before flow steps were journaled. */
  fu?: Wire[][];
  /** User balances after the entry's changes (the balance stream); absent in entries written before it. */
  a?: Wire[][];
  /** Book levels after the entry's changes (the order-book stream); absent in entries written before it. */
  k?: Wire[][];
}

export function encodeEntry(ws: WriteSet): string {
  const wire: EntryWire = {
    v: ws.versions.map((v) => encodeRow(VERSION_COLUMNS, v)),
    n: [...ws.newOrders.keys()].map(String),
    t: ws.trades.map((t) => encodeRow(TRADE_COLUMNS, t)),
    r: ws.riskLegs.map((r) => encodeRow(RISK_LEG_COLUMNS, r)),
    x: ws.transfers.map((t) => [encodeRow(TRANSFER_COLUMNS, t), t.legs.map((l) => encodeRow(LEG_ROW_COLUMNS, l))]),
    b: [...ws.balances.values()].map((b) => encodeRow(BALANCE_COLUMNS, b)),
    s: [...ws.sequences].map(([symbolId, s]) => encodeRow(SEQUENCE_COLUMNS, { symbolId, ...s })),
    c: ws.clientOrderIds.map((c) => encodeRow(RESERVATION_COLUMNS, c)),
    ...(ws.switches.size > 0 ? { d: [...ws.switches.values()].map((sw) => encodeRow(SWITCH_COLUMNS, sw)) } : {}),
    ...(ws.triggers.size > 0 ? { g: [...ws.triggers.values()].map((t) => encodeRow(TRIGGER_COLUMNS, t)) } : {}),
    ...(ws.triggerEvents.length > 0 ? { e: ws.triggerEvents.map((e) => encodeRow(EVENT_COLUMNS, e)) } : {}),
    ...(ws.withdrawIntents.size > 0 ? { w: [...ws.withdrawIntents.values()].map((w) => encodeRow(WITHDRAW_INTENT_COLUMNS, w)) } : {}),
    ...(ws.flows.length > 0 ? { f: ws.flows.map((f) => encodeRow(FLOW_COLUMNS, f)) } : {}),
    ...(ws.withdrawStatuses.size > 0 ? { u: [...ws.withdrawStatuses.values()].map((u) => encodeRow(WITHDRAW_STATUS_COLUMNS, u)) } : {}),
    ...(ws.flowUpdates.size > 0 ? { fu: [...ws.flowUpdates.values()].map((u) => encodeRow(FLOW_UPDATE_COLUMNS, u)) } : {}),
    ...(ws.balancesAfter.size > 0 ? { a: [...ws.balancesAfter.values()].map((b) => encodeRow(BALANCE_AFTER_COLUMNS, b)) } : {}),
    ...(ws.bookLevels.length > 0 ? { k: ws.bookLevels.map((l) => encodeRow(BOOK_LEVEL_COLUMNS, l)) } : {}),
  };
  return JSON.stringify(wire);
}

export function decodeEntry(payload: string): WriteSet {
  const wire = JSON.parse(payload) as EntryWire;
  const ws = new WriteSet();
  const inserted = new Set(wire.n);
  // A new order is inserted with its last version; every other order is updated to it.
  for (const values of wire.v) {
    const version = decodeRow(VERSION_COLUMNS, values);
    // Entries written before orders had an origin carry none: they were placed directly.
    version.originScope ??= 'DIRECT';
    version.childSeq ??= 0;
    ws.versions.push(version);
    if (inserted.has(version.id.toString())) ws.newOrders.set(version.id, version);
    else ws.changedOrders.set(version.id, version);
  }
  // In the order the group first inserted them, which a version changed earlier in the group does not show.
  const lastInserted = new Map(ws.newOrders);
  ws.newOrders.clear();
  for (const id of wire.n) ws.newOrders.set(BigInt(id), lastInserted.get(BigInt(id)) as OrderVersion);
  for (const values of wire.t) ws.trades.push(decodeRow(TRADE_COLUMNS, values));
  for (const values of wire.r) ws.riskLegs.push(decodeRow(RISK_LEG_COLUMNS, values));
  for (const [transfer, legs] of wire.x) {
    ws.transfers.push({ ...decodeRow<Omit<TransferRow, 'legs'>>(TRANSFER_COLUMNS as Columns<Omit<TransferRow, 'legs'>>, transfer), legs: legs.map((l) => decodeRow(LEG_ROW_COLUMNS, l)) });
  }
  for (const values of wire.b) {
    const b = decodeRow(BALANCE_COLUMNS, values);
    ws.balance(b.accountId, b.ledgerAccount, b.assetId, b.available, b.held);
  }
  for (const values of wire.s) {
    const { symbolId, ...s } = decodeRow(SEQUENCE_COLUMNS, values);
    ws.sequences.set(symbolId, s);
  }
  for (const values of wire.c) ws.clientOrderIds.push(decodeRow(RESERVATION_COLUMNS, values));
  for (const values of wire.d ?? []) ws.switch(decodeRow(SWITCH_COLUMNS, values));
  for (const values of wire.g ?? []) ws.trigger(decodeRow(TRIGGER_COLUMNS, values));
  for (const values of wire.e ?? []) ws.triggerEvents.push(decodeRow(EVENT_COLUMNS, values));
  for (const values of wire.w ?? []) {
    const w = decodeRow(WITHDRAW_INTENT_COLUMNS, values);
    ws.withdrawIntents.set(w.id, w);
  }
  for (const values of wire.f ?? []) {
    const f = decodeRow(FLOW_COLUMNS, values);
    // Written before flows carried their version: inserted at the column's default.
    f.version ??= 1n;
    ws.flows.push(f);
  }
  for (const values of wire.u ?? []) ws.withdrawStatus(decodeRow(WITHDRAW_STATUS_COLUMNS, values));
  for (const values of wire.fu ?? []) ws.flowUpdate(decodeRow(FLOW_UPDATE_COLUMNS, values));
  for (const values of wire.a ?? []) ws.balanceAfter(decodeRow(BALANCE_AFTER_COLUMNS, values));
  for (const values of wire.k ?? []) ws.bookLevels.push(decodeRow(BOOK_LEVEL_COLUMNS, values));
  return ws;
}

/** The accounts with a private stream event in the entry (order versions, fills, trigger events, balances): its rows of TradingJournalAccount. */
export function entryAccounts(ws: WriteSet): string[] {
  const out = new Set<string>();
  // A fill's order always has a version in the same entry, so versions name its account.
  for (const v of ws.versions) out.add(v.accountPublicId);
  for (const e of ws.triggerEvents) out.add(e.accountPublicId);
  for (const b of ws.balancesAfter.values()) out.add(b.accountPublicId);
  return [...out];
}

export interface JournalEntry {
  seq: bigint;
  ws: WriteSet;
}

/** The journal's table, for its one writer (appends) and for readers of its history. */
export class Journal {
  private last = 0n;

  constructor(
    private readonly sql: SqlQueryable,
    /** Read at every append: the epoch moves when the engine takes its lock again. */
    private readonly fence: () => EngineFence,
  ) {}

  /** The sequence of the last entry known to be durable. */
  get lastSeq(): bigint {
    return this.last;
  }

  /**
   * Reads where the journal ends. Run before appending, and again after a failed append:
   * an append whose answer was lost may have been stored.
   */
  async open(projected: bigint): Promise<void> {
    const [row] = await this.sql.query<{ seq: string | null }>(`SELECT max(seq)::text AS seq FROM "TradingJournal"`);
    const stored = row?.seq ? BigInt(row.seq) : 0n;
    // Retention may have removed every entry: numbering goes on past what was projected.
    this.last = stored > projected ? stored : projected;
  }

  /** Appends a group's write set as the next entry, unless past `deadline` (epoch ms); resolves with its sequence once durable. */
  async append(ws: WriteSet, deadline: number): Promise<bigint> {
    const seq = this.last + 1n;
    const payload = encodeEntry(ws);
    // What is left of the deadline when the statement leaves: PostgreSQL counts it down on its own clock.
    await appendJournal(this.sql, seq, payload, entryAccounts(ws), this.fence(), deadline - Date.now());
    this.last = seq;
    return seq;
  }

  /** Entries after `after`, at most through `through`, in order. */
  async read(after: bigint, through: bigint, limit: number): Promise<JournalEntry[]> {
    const rows = await this.sql.query<{ seq: string; payload: string }>(
      `SELECT seq::text AS seq, payload FROM "TradingJournal" WHERE seq > $1::bigint AND seq <= $2::bigint ORDER BY "TradingJournal".seq LIMIT $3`,
      [after.toString(), through.toString(), limit],
    );
    return rows.map((r) => ({ seq: BigInt(r.seq), ws: decodeEntry(r.payload) }));
  }

  /**
   * Entries after `after`, at most through `through`, that hold a private stream event of
   * `accountPublicId`, in order: a range of the accounts table's primary key, so an account
   * with no event in the journal costs one index probe, not a read of every entry.
   */
  async readOf(accountPublicId: string, after: bigint, through: bigint, limit: number): Promise<JournalEntry[]> {
    const rows = await this.sql.query<{ seq: string; payload: string }>(
      `SELECT j.seq::text AS seq, j.payload FROM "TradingJournalAccount" a JOIN "TradingJournal" j ON j.seq = a.seq
        WHERE a."accountPublicId" = $1 AND a.seq > $2::bigint AND a.seq <= $3::bigint ORDER BY a.seq LIMIT $4`,
      [accountPublicId, after.toString(), through.toString(), limit],
      { prepare: true },
    );
    return rows.map((r) => ({ seq: BigInt(r.seq), ws: decodeEntry(r.payload) }));
  }

  /** The first sequence still kept; past the last one when retention removed them all. */
  async firstSeq(): Promise<bigint> {
    const [row] = await this.sql.query<{ seq: string | null }>(`SELECT min(seq)::text AS seq FROM "TradingJournal"`);
    return row?.seq ? BigInt(row.seq) : this.last + 1n;
  }

  /** Drops entries committed before `before` that are projected already (retention). */
  async prune(before: Date, projected: bigint): Promise<void> {
    await this.sql.query(
      `WITH gone AS (DELETE FROM "TradingJournal" WHERE seq <= $1::bigint AND "committedAt" < $2::timestamptz RETURNING seq)
      DELETE FROM "TradingJournalAccount" a USING gone WHERE a.seq = gone.seq`,
      [projected.toString(), before.toISOString()],
    );
  }
}
