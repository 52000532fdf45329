import type { SqlQueryable } from '../../infra/migrations.ts';
import type { BalanceDelta, FlowRow, FlowUpdateRow, LegRow, WithdrawIntentRow, WithdrawStatusRow, OrderRow, RiskLegRow, SwitchRow, TradeRow, TransferRow, TriggerEventRow, TriggerRow, WriteSet } from './writeSet.ts';

export type SqlType = 'bigint' | 'int' | 'text' | 'jsonb' | 'bytea' | 'boolean' | 'numeric' | 'timestamptz' | `"${string}"`;
type Value = bigint | number | string | boolean | Date | null | undefined;
export type Columns<R> = [keyof R & string, SqlType][];

const ESCAPED = /[\\"]/g;

/**
 * One column of `rows` as a PostgreSQL array literal (`{1,2,NULL}`, `{"a","b\"c"}`), passed
 * as a single text parameter and cast in SQL. Both drivers (pg, PGlite) then send one
 * string per column, whatever the row count, instead of escaping every element
 * themselves. Built in one pass: a group commits thousands of values, and this runs on
 * the event loop between the commits.
 */
function arrayLiteral<R>(rows: R[], column: keyof R, type: SqlType): string {
  const quoted = type === 'text' || type === 'jsonb' || type === 'bytea' || type === 'timestamptz' || type.startsWith('"');
  const boolean = type === 'boolean';
  const bytea = type === 'bytea';
  // The rows of a group mostly share one Date object (the group's clock reading).
  let lastDate: Date | undefined;
  let lastDateText = '';
  let out = '{';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) out += ',';
    const v = (rows[i] as R)[column] as Value;
    if (v === null || v === undefined) out += 'NULL';
    else if (boolean) out += v ? 't' : 'f';
    else if (!quoted) out += String(v);
    else if (v instanceof Date) {
      if (v !== lastDate) {
        lastDate = v;
        lastDateText = v.toISOString();
      }
      out += `"${lastDateText}"`;
    } else if (bytea) {
      // Hex text (no quote or backslash in it); PostgreSQL reads `\x`-prefixed text as bytea.
      out += `"\\\\x${String(v)}"`;
    } else {
      const text = String(v);
      out += text.includes('"') || text.includes('\\') ? `"${text.replace(ESCAPED, '\\$&')}"` : `"${text}"`;
    }
  }
  return `${out}}`;
}

/** Accumulates the statement's parameters; each call adds one column and returns its typed reference. */
class Params {
  readonly values: string[] = [];
  column<R>(rows: R[], column: keyof R, type: SqlType): string {
    this.values.push(arrayLiteral(rows, column, type));
    return `$${this.values.length}::${type}[]`;
  }
}

const names = <R>(columns: Columns<R>) => columns.map(([c]) => `"${c}"`).join(', ');

/** A FROM item: the given columns of `rows` as a table `alias` with the columns' names. */
function unnest<R>(params: Params, columns: Columns<R>, rows: R[], alias: string): string {
  const cols = columns.map(([c, t]) => params.column(rows, c, t)).join(', ');
  return `unnest(${cols}) AS ${alias}(${names(columns)})`;
}

/** Only when the statement's first part, the watermark step, returned its row. */
const GUARD = 'EXISTS (SELECT 1 FROM w0)';

function insert<R>(params: Params, table: string, columns: Columns<R>, rows: R[]): string {
  return `INSERT INTO "${table}" (${names(columns)}) SELECT * FROM ${unnest(params, columns, rows, 't')} WHERE ${GUARD}`;
}

export const ORDER_COLUMNS: Columns<OrderRow> = [
  ['id', 'bigint'], ['publicId', 'text'], ['accountId', 'bigint'], ['symbolId', 'int'], ['clientOrderId', 'text'],
  ['side', '"Side"'], ['orderType', '"OrderType"'], ['tif', '"TimeInForce"'], ['status', '"OrderStatus"'], ['isOpen', 'boolean'],
  ['closeReason', '"OrderCloseReason"'], ['price', 'bigint'], ['origQty', 'bigint'], ['cumQty', 'bigint'], ['leavesQty', 'bigint'],
  ['inheritedCumQty', 'bigint'], ['inheritedNotionalQ9', 'numeric'], ['cumNotionalQ9', 'numeric'], ['feeAsset', '"FeeAsset"'], ['postOnly', 'boolean'], ['stpMode', '"StpMode"'],
  ['expireAt', 'timestamptz'], ['expireAtTsNs', 'bigint'], ['createdAt', 'timestamptz'], ['acceptedAtTsNs', 'bigint'], ['terminalAt', 'timestamptz'],
  ['lineageId', 'text'], ['generation', 'int'], ['replacesOrderId', 'bigint'], ['marketClientRefPrice', 'bigint'], ['marketMaxSlippageBps', 'int'],
  ['marketMaxSlippageTicks', 'int'], ['submittedMaxQuoteDebit', 'bigint'], ['version', 'int'], ['heldE18', 'numeric'], ['prioritySeq', 'bigint'],
  ['oco', 'boolean'], ['originScope', '"OrderOriginScope"'], ['originTriggerId', 'bigint'], ['originTriggerType', '"TriggerType"'], ['childSeq', 'int'],
];

/** What can change on an order after it was inserted. */
export const ORDER_CHANGE_COLUMNS: Columns<OrderRow> = [
  ['id', 'bigint'], ['status', '"OrderStatus"'], ['isOpen', 'boolean'], ['closeReason', '"OrderCloseReason"'], ['cumQty', 'bigint'],
  ['leavesQty', 'bigint'], ['origQty', 'bigint'], ['price', 'bigint'], ['cumNotionalQ9', 'numeric'], ['heldE18', 'numeric'],
  ['version', 'int'], ['terminalAt', 'timestamptz'], ['prioritySeq', 'bigint'],
];

export const RISK_LEG_COLUMNS: Columns<RiskLegRow> = [
  ['orderId', 'bigint'], ['kind', '"AttachedRiskLegKind"'], ['triggerPrice', 'bigint'], ['childKind', '"ChildOrderKind"'], ['childLimitPrice', 'bigint'],
  ['childPostOnly', 'boolean'], ['activationPrice', 'bigint'], ['maxSlippageTicks', 'int'], ['maxSlippageBps', 'int'],
  ['trailingDistanceTicks', 'bigint'], ['trailingDistanceBps', 'int'], ['status', '"AttachedRiskLegStatus"'], ['triggerId', 'bigint'],
];

export const TRANSFER_COLUMNS: Columns<TransferRow> = [
  ['id', 'bigint'], ['transferCode', '"TransferCode"'], ['timestampUs', 'bigint'], ['symbolId', 'int'], ['matchId', 'bigint'], ['memo', 'text'], ['flowId', 'bigint'],
];

export type LegInsert = LegRow & { transferId: bigint; timestampUs: bigint; symbolId: number | null; matchId: bigint | null; flowId: bigint | null };

/**
 * Spelled out rather than spread: V8 copies a spread with added fields slowly, and that
 * copy was more than half of building a statement.
 */
export const legInsert = (t: TransferRow, l: LegRow): LegInsert => ({
  transferId: t.id,
  accountId: l.accountId,
  ledgerAccount: l.ledgerAccount,
  assetId: l.assetId,
  amount: l.amount,
  isDebit: l.isDebit,
  balanceAfter: l.balanceAfter,
  transferCode: l.transferCode,
  timestampUs: t.timestampUs,
  symbolId: t.symbolId,
  matchId: t.matchId,
  sourceAccountId: l.sourceAccountId,
  sourceKind: l.sourceKind,
  destinationAccountId: l.destinationAccountId,
  destinationKind: l.destinationKind,
  flowId: t.flowId,
});
export const LEG_COLUMNS: Columns<LegInsert> = [
  ['transferId', 'bigint'], ['accountId', 'bigint'], ['ledgerAccount', '"LedgerAccount"'], ['assetId', 'int'], ['amount', 'numeric'],
  ['isDebit', 'boolean'], ['balanceAfter', 'numeric'], ['transferCode', '"TransferCode"'], ['timestampUs', 'bigint'], ['symbolId', 'int'],
  ['matchId', 'bigint'], ['sourceAccountId', 'bigint'], ['sourceKind', '"TransferSideKind"'], ['destinationAccountId', 'bigint'], ['destinationKind', '"TransferSideKind"'],
  ['flowId', 'bigint'],
];

export const TRADE_COLUMNS: Columns<TradeRow> = [
  ['symbolId', 'int'], ['matchId', 'bigint'], ['orderId', 'bigint'], ['accountId', 'bigint'], ['lineageId', 'text'], ['generation', 'int'],
  ['side', '"Side"'], ['price', 'bigint'], ['qty', 'bigint'], ['isMaker', 'boolean'], ['fee', 'numeric'], ['feeAsset', '"FeeAsset"'],
  ['feeIsRebate', 'boolean'], ['executedAt', 'timestamptz'], ['executedAtTsNs', 'bigint'], ['transferId', 'bigint'],
];

export const BALANCE_COLUMNS: Columns<BalanceDelta> = [
  ['accountId', 'bigint'], ['ledgerAccount', '"LedgerAccount"'], ['assetId', 'int'], ['available', 'numeric'], ['held', 'numeric'],
];

type SequenceRow = { symbolId: number; lastMatchId: bigint; lastPrioritySeq: bigint; lastBookSeq: bigint };
export const SEQUENCE_COLUMNS: Columns<SequenceRow> = [['symbolId', 'int'], ['lastMatchId', 'bigint'], ['lastPrioritySeq', 'bigint'], ['lastBookSeq', 'bigint']];

type Reservation = WriteSet['clientOrderIds'][number];
export const RESERVATION_COLUMNS: Columns<Reservation> = [
  ['accountId', 'bigint'], ['clientOrderId', 'text'], ['orderId', 'bigint'], ['createdAt', 'timestamptz'], ['expiresAt', 'timestamptz'],
];

export const SWITCH_COLUMNS: Columns<SwitchRow> = [
  ['accountId', 'bigint'], ['symbolId', 'int'], ['side', '"SideScope"'], ['status', '"DeadManSwitchStatus"'], ['timeoutSec', 'int'],
  ['expiresAtTsNs', 'bigint'], ['requestId', 'text'], ['armedAt', 'timestamptz'], ['lastFiredAtTsNs', 'bigint'],
];

export const TRIGGER_COLUMNS: Columns<TriggerRow> = [
  ['id', 'bigint'], ['publicId', 'text'], ['accountId', 'bigint'], ['clientTriggerId', 'text'], ['symbolId', 'int'], ['triggerType', '"TriggerType"'],
  ['status', '"TriggerStatus"'], ['side', '"Side"'], ['qty', 'bigint'], ['feeAsset', '"FeeAsset"'], ['stpMode', '"StpMode"'],
  ['cancelReason', '"TriggerCancelReason"'], ['failureReason', '"TriggerFailureReason"'], ['triggerDirection', '"TriggerDirection"'], ['triggerPrice', 'bigint'],
  ['childKind', '"ChildOrderKind"'], ['childLimitPrice', 'bigint'], ['childPostOnly', 'boolean'], ['maxSlippageTicks', 'int'], ['maxSlippageBps', 'int'],
  ['cumFilledQty', 'bigint'], ['lastChildSeq', 'int'], ['firePx', 'bigint'], ['version', 'int'], ['heldE18', 'numeric'], ['acceptedAtTsNs', 'bigint'],
  ['createdAt', 'timestamptz'], ['updatedAt', 'timestamptz'], ['armedAt', 'timestamptz'], ['completedAt', 'timestamptz'], ['terminalAt', 'timestamptz'],
  ['params', 'jsonb'], ['state', 'jsonb'], ['parentOrderId', 'bigint'],
];

/** What can change on a trigger after it was created. */
const TRIGGER_CHANGE_COLUMNS = [
  'status', 'cancelReason', 'failureReason', 'cumFilledQty', 'lastChildSeq', 'firePx', 'version', 'heldE18', 'updatedAt', 'armedAt', 'completedAt', 'terminalAt',
  'triggerPrice', 'state', 'qty', 'parentOrderId',
] as const;

export const TRIGGER_EVENT_COLUMNS: Columns<TriggerEventRow> = [
  ['triggerId', 'bigint'], ['eventType', '"TriggerEventType"'], ['triggerType', '"TriggerType"'], ['accountId', 'bigint'], ['symbolId', 'int'],
  ['childOrderId', 'bigint'], ['childSeq', 'int'], ['firePx', 'bigint'], ['cancelReason', '"TriggerCancelReason"'], ['failureReason', '"TriggerFailureReason"'], ['tsNs', 'bigint'],
];

export const WITHDRAW_INTENT_COLUMNS: Columns<WithdrawIntentRow> = [
  ['id', 'bigint'], ['publicId', 'text'], ['accountId', 'bigint'], ['action', '"WithdrawAction"'], ['authorization', '"WithdrawAuthorization"'],
  ['apiKeyId', 'bigint'], ['signerWallet', 'text'], ['amount', 'numeric'], ['fee', 'numeric'], ['assetId', 'int'], ['deadlineTsSec', 'bigint'],
  ['destinationAddress', 'text'], ['destinationChainId', 'int'], ['destinationAccountId', 'bigint'], ['idempotencyKey', 'text'], ['nonce', 'numeric'],
  ['payload', 'bytea'], ['payloadHash', 'bytea'], ['payloadSignature', 'bytea'], ['status', '"WithdrawIntentStatus"'], ['failureReason', 'text'],
  ['flowId', 'bigint'], ['createdAt', 'timestamptz'], ['updatedAt', 'timestamptz'],
];

export const WITHDRAW_STATUS_COLUMNS: Columns<WithdrawStatusRow> = [['id', 'bigint'], ['status', '"WithdrawIntentStatus"'], ['failureReason', 'text'], ['updatedAt', 'timestamptz']];

export const FLOW_COLUMNS: Columns<FlowRow> = [
  ['id', 'bigint'], ['publicId', 'text'], ['ownerAccountId', 'bigint'], ['rootAccountId', 'bigint'], ['smartAccountAddress', 'text'],
  ['flowKind', '"FlowKind"'], ['flowState', '"FlowState"'], ['currentStep', '"FlowStep"'], ['currentStepSequence', 'int'], ['unifiedAssetId', 'int'],
  ['zippedAssetId', 'int'], ['amountE18', 'numeric'], ['serviceChainId', 'int'], ['sourceDomain', '"FlowDomain"'], ['destinationDomain', '"FlowDomain"'],
  ['sourceAddress', 'text'], ['destinationAddress', 'text'], ['latestLifecycleSource', '"LifecycleSource"'], ['lifecycleReason', '"LifecycleReason"'],
  ['isOpen', 'boolean'], ['isTerminal', 'boolean'], ['startedAt', 'timestamptz'], ['updatedAt', 'timestamptz'], ['lastActivityAt', 'timestamptz'],
  ['terminalAt', 'timestamptz'], ['estimatedCompletionAt', 'timestamptz'], ['currentProgress', 'jsonb'], ['progressTimeline', 'jsonb'], ['requestFee', 'jsonb'],
  ['sourceTxHash', 'text'], ['txOccurrenceIndex', 'text'], ['latestTxRef', 'text'], ['depositAddressId', 'bigint'], ['version', 'bigint'],
];

export const FLOW_UPDATE_COLUMNS: Columns<FlowUpdateRow> = [
  ['id', 'bigint'], ['version', 'bigint'], ['flowState', '"FlowState"'], ['currentStep', '"FlowStep"'], ['currentStepSequence', 'int'], ['lifecycleReason', '"LifecycleReason"'],
  ['isOpen', 'boolean'], ['isTerminal', 'boolean'], ['updatedAt', 'timestamptz'], ['lastActivityAt', 'timestamptz'], ['terminalAt', 'timestamptz'],
  ['estimatedCompletionAt', 'timestamptz'], ['currentProgress', 'jsonb'], ['progressTimeline', 'jsonb'], ['requestFee', 'jsonb'], ['latestLifecycleSource', '"LifecycleSource"'],
  ['latestTxRef', 'text'], ['sourceTxHash', 'text'], ['txOccurrenceIndex', 'text'],
];

/** Where a projection statement moves its watermark: from `from` (what it must find) to `to`. */
export interface WatermarkStep {
  name: string;
  from: bigint;
  to: bigint;
  /** Entries the step moves past without applying them: parked in the quarantine by the same statement. */
  park?: QuarantineInsert[];
}

/**
 * The re-apply of one parked entry (the operator's): it applies only while the entry is
 * still parked, and marks it re-applied in the same statement, so it is applied once.
 */
export interface ReapplyStep {
  name: string;
  reapply: bigint;
}

export interface QuarantineInsert {
  seq: bigint;
  error: string;
  sqlState: string | null;
  behindSeq: bigint | null;
  keys: string[];
  accountIds: bigint[];
}

const quarantineJson = (rows: QuarantineInsert[]) =>
  JSON.stringify(rows.map((r) => ({ seq: r.seq.toString(), error: r.error, sqlState: r.sqlState, behindSeq: r.behindSeq?.toString() ?? null, keys: r.keys, accountIds: r.accountIds.map(String) })));

/**
 * The projection of journal entries `step.from + 1 .. step.to` as one SQL statement of
 * data-modifying CTEs: one round trip, and atomic without BEGIN/COMMIT. Its first part
 * moves the watermark, and every other part applies only if that part found the watermark
 * where the entries begin, so applying entries again changes nothing. Every part sees the
 * same snapshot, which is sound because the write set never touches a row twice: an
 * order new in the batch is inserted with its final state, never also updated, and
 * balance deltas are summed per key. A watermark step may also park entries in the
 * quarantine (`step.park`); a re-apply step's first part instead marks one parked entry
 * re-applied, and the rest applies only if it was still parked.
 */
export function writeSetStatement(ws: WriteSet, step: WatermarkStep | ReapplyStep): { text: string; values: string[] } {
  const p = new Params();
  const parts: string[] = [];
  if ('reapply' in step) {
    p.values.push(step.name, step.reapply.toString());
    parts.push(`UPDATE "ProjectionQuarantine" SET status = 'REAPPLIED', "reappliedAt" = now() WHERE name = $1 AND seq = $2::bigint AND status = 'PARKED' RETURNING 1`);
  } else {
    p.values.push(step.name, step.to.toString(), step.from.toString());
    parts.push(`UPDATE "ProjectionWatermark" SET seq = $2::bigint WHERE name = $1 AND seq = $3::bigint RETURNING 1`);
    if (step.park && step.park.length > 0) {
      p.values.push(quarantineJson(step.park));
      parts.push(`INSERT INTO "ProjectionQuarantine" (name, seq, error, "sqlState", "behindSeq", keys, "accountIds")
        SELECT $1, q.seq, q.error, q."sqlState", q."behindSeq", ARRAY(SELECT jsonb_array_elements_text(q.keys)), ARRAY(SELECT jsonb_array_elements_text(q."accountIds")::bigint)
        FROM jsonb_to_recordset($${p.values.length}::jsonb) AS q(seq bigint, error text, "sqlState" text, "behindSeq" bigint, keys jsonb, "accountIds" jsonb) WHERE ${GUARD}`);
    }
  }
  if (ws.newOrders.size > 0) parts.push(insert(p, 'Order', ORDER_COLUMNS, [...ws.newOrders.values()]));
  if (ws.riskLegs.length > 0) {
    // An order has one policy row per kind: a leg set anew (POST /v1/orders/attached-risk)
    // takes its kind's row over, the last one of an entry winning (one row is updated once).
    const latest = new Map(ws.riskLegs.map((r) => [`${r.orderId}:${r.kind}`, r]));
    const set = RISK_LEG_COLUMNS.filter(([c]) => c !== 'orderId' && c !== 'kind').map(([c]) => `"${c}" = EXCLUDED."${c}"`);
    parts.push(`${insert(p, 'AttachedRiskLeg', RISK_LEG_COLUMNS, [...latest.values()])} ON CONFLICT ("orderId", kind) DO UPDATE SET ${set.join(', ')}, "updatedAt" = now()`);
  }
  if (ws.changedOrders.size > 0) {
    const set = ORDER_CHANGE_COLUMNS.filter(([c]) => c !== 'id').map(([c]) => `"${c}" = u."${c}"`);
    parts.push(`UPDATE "Order" AS o SET ${set.join(', ')}, "updatedAt" = now()
      FROM ${unnest(p, ORDER_CHANGE_COLUMNS, [...ws.changedOrders.values()], 'u')} WHERE o.id = u.id AND ${GUARD}`);
  }
  // Flows before the transfers and intents that reference them (checked at the statement's end anyway).
  if (ws.flows.length > 0) parts.push(insert(p, 'LifecycleFlow', FLOW_COLUMNS, ws.flows));
  if (ws.flowUpdates.size > 0) {
    const set = FLOW_UPDATE_COLUMNS.filter(([c]) => c !== 'id').map(([c]) => `"${c}" = u."${c}"`);
    // A re-applied entry older than what later entries stored never moves a flow back.
    parts.push(`UPDATE "LifecycleFlow" AS f SET ${set.join(', ')}
      FROM ${unnest(p, FLOW_UPDATE_COLUMNS, [...ws.flowUpdates.values()], 'u')} WHERE f.id = u.id AND f.version < u.version AND ${GUARD}`);
  }
  if (ws.withdrawIntents.size > 0) parts.push(insert(p, 'WithdrawIntent', WITHDRAW_INTENT_COLUMNS, [...ws.withdrawIntents.values()]));
  if (ws.withdrawStatuses.size > 0) {
    parts.push(`UPDATE "WithdrawIntent" AS i SET status = u.status, "failureReason" = u."failureReason", "updatedAt" = u."updatedAt"
      FROM ${unnest(p, WITHDRAW_STATUS_COLUMNS, [...ws.withdrawStatuses.values()], 'u')} WHERE i.id = u.id AND ${GUARD}`);
  }
  if (ws.transfers.length > 0) {
    parts.push(insert(p, 'LedgerTransfer', TRANSFER_COLUMNS, ws.transfers));
    const legs: LegInsert[] = [];
    for (const t of ws.transfers) for (const l of t.legs) legs.push(legInsert(t, l));
    if (legs.length > 0) parts.push(insert(p, 'LedgerTransferLeg', LEG_COLUMNS, legs));
  }
  if (ws.trades.length > 0) parts.push(insert(p, 'Trade', TRADE_COLUMNS, ws.trades));
  if (ws.balances.size > 0) {
    // Sorted keys give every statement the same row-lock order.
    const deltas = [...ws.balances.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
    parts.push(`INSERT INTO "Balance" ("accountId", "ledgerAccount", "assetId", available, held, version, "updatedAt")
      SELECT "accountId", "ledgerAccount", "assetId", available, held, 1, now() FROM ${unnest(p, BALANCE_COLUMNS, deltas, 'b')} WHERE ${GUARD}
      ON CONFLICT ("accountId", "ledgerAccount", "assetId") DO UPDATE SET
        available = "Balance".available + EXCLUDED.available, held = "Balance".held + EXCLUDED.held,
        version = "Balance".version + 1, "updatedAt" = now()`);
  }
  if (ws.sequences.size > 0) {
    const rows = [...ws.sequences].map(([symbolId, s]) => ({ symbolId, ...s }));
    // A re-applied entry is older than the counters later entries stored: it never moves them back.
    const set = ['lastMatchId', 'lastPrioritySeq', 'lastBookSeq'].map((c) => ('reapply' in step ? `"${c}" = GREATEST(m."${c}", s."${c}")` : `"${c}" = s."${c}"`));
    parts.push(`UPDATE "MarketSequence" AS m SET ${set.join(', ')}
      FROM ${unnest(p, SEQUENCE_COLUMNS, rows, 's')} WHERE m."symbolId" = s."symbolId" AND ${GUARD}`);
  }
  if (ws.clientOrderIds.length > 0) {
    parts.push(`INSERT INTO "ClientOrderIdReservation" ("accountId", "clientOrderId", "orderId", "createdAt", "expiresAt")
      SELECT * FROM ${unnest(p, RESERVATION_COLUMNS, ws.clientOrderIds, 'c')} WHERE ${GUARD}
      ON CONFLICT ("accountId", "clientOrderId") DO UPDATE SET
        "orderId" = EXCLUDED."orderId", "createdAt" = EXCLUDED."createdAt", "expiresAt" = EXCLUDED."expiresAt"`);
  }
  if (ws.triggers.size > 0) {
    parts.push(`INSERT INTO "Trigger" (${names(TRIGGER_COLUMNS)})
      SELECT * FROM ${unnest(p, TRIGGER_COLUMNS, [...ws.triggers.values()], 'g')} WHERE ${GUARD}
      ON CONFLICT (id) DO UPDATE SET ${TRIGGER_CHANGE_COLUMNS.map((c) => `"${c}" = EXCLUDED."${c}"`).join(', ')}`);
  }
  if (ws.triggerEvents.length > 0) parts.push(insert(p, 'TriggerEvent', TRIGGER_EVENT_COLUMNS, ws.triggerEvents));
  if (ws.switches.size > 0) {
    parts.push(`INSERT INTO "DeadManSwitch" (${names(SWITCH_COLUMNS)}, "updatedAt")
      SELECT *, now() FROM ${unnest(p, SWITCH_COLUMNS, [...ws.switches.values()], 'd')} WHERE ${GUARD}
      ON CONFLICT ("accountId", "symbolId", side) DO UPDATE SET
        status = EXCLUDED.status, "timeoutSec" = EXCLUDED."timeoutSec", "expiresAtTsNs" = EXCLUDED."expiresAtTsNs", "requestId" = EXCLUDED."requestId",
        "armedAt" = COALESCE(EXCLUDED."armedAt", "DeadManSwitch"."armedAt"),
        "lastFiredAtTsNs" = COALESCE(EXCLUDED."lastFiredAtTsNs", "DeadManSwitch"."lastFiredAtTsNs"), "updatedAt" = now()`);
  }
  const text = `WITH ${parts.map((sql, i) => `w${i} AS (${sql})`).join(',\n')}
    SELECT EXISTS (SELECT 1 FROM w0) AS applied`;
  return { text, values: p.values };
}

/**
 * Applies one batch of journal entries to the read tables: all of it or none of it.
 * False when the watermark was not at `step.from` (the entries were applied already, or
 * others are missing before them): then nothing changed.
 */
export async function projectWriteSet(sql: SqlQueryable, ws: WriteSet, step: WatermarkStep | ReapplyStep): Promise<boolean> {
  const { text, values } = writeSetStatement(ws, step);
  // A batch's text depends only on which parts it has, so a few texts cover every batch,
  // and parsing and planning this many CTEs costs PostgreSQL more than a small batch's rows.
  // A batch is derived from journal entries already durable; a re-apply is the operator's
  // acknowledged action, so it waits for its own flush.
  const [row] = await sql.query<{ applied: boolean }>(text, values, { prepare: true, relaxedCommit: !('reapply' in step) });
  return row?.applied === true;
}

/** How long past its budget an append may stay unanswered before its connection is given up. */
export const APPEND_ABANDON_MARGIN_MS = 500;
/** A budget beyond any deadline (int4 milliseconds, about 24 days): no deadline. */
const NO_DEADLINE_MS = 2_147_483_647;

/**
 * Appends one journal entry, the acknowledgement of its group: stored whole or not at all,
 * only while `fence` is still the current owner's (else it raises EF001), and only if
 * PostgreSQL runs it within `budgetMs` of the statement's start (else EJ001).
 *
 * One clock decides: the budget is what is left of the deadline by Node's clock when the
 * statement is sent, and PostgreSQL measures it with its own clock from the statement's
 * start (`statement_timestamp()`), so no comparison ever spans two machines' clocks. The
 * elapsed time is read after the fence row is locked, so a statement held up behind a
 * lock stores nothing past its budget. A statement that is late before it even starts
 * (held up in the network) is not caught by the budget; the client gives its connection up
 * `APPEND_ABANDON_MARGIN_MS` after the budget, and the recovery that follows moves the
 * fence before it reads the journal, so such a statement can never land afterwards
 * (docs/scaling.md, "Bounded waits on PostgreSQL").
 */
export async function appendJournal(sql: SqlQueryable, seq: bigint, payload: string, accounts: readonly string[], fence: EngineFence, budgetMs: number): Promise<void> {
  const budget = Number.isFinite(budgetMs) ? Math.max(0, Math.min(Math.ceil(budgetMs), NO_DEADLINE_MS)) : NO_DEADLINE_MS;
  await sql.query(
    `WITH f AS (UPDATE "EngineFence" SET epoch = epoch WHERE name = $1 AND epoch = $2::bigint RETURNING clock_timestamp() AS at),
      d AS (SELECT statement_timestamp() + $5::int * interval '1 millisecond' AS deadline),
      j AS (INSERT INTO "TradingJournal" (seq, payload) SELECT $3::bigint, $4 FROM f, d WHERE f.at <= d.deadline RETURNING seq),
      a AS (INSERT INTO "TradingJournalAccount" ("accountPublicId", seq) SELECT unnest($6::text[]), j.seq FROM j)
    SELECT CASE WHEN EXISTS (SELECT 1 FROM j) THEN 1
      WHEN EXISTS (SELECT 1 FROM f) THEN "journal_deadline_passed"((SELECT deadline FROM d))
      ELSE "engine_fence_lost"($1, $2::bigint) END`,
    [fence.name, fence.epoch.toString(), seq.toString(), payload, budget, accounts],
    { prepare: true, ...(budget < NO_DEADLINE_MS ? { timeoutMs: budget + APPEND_ABANDON_MARGIN_MS } : {}) },
  );
}

/** The fence a writer took with its lock: the row's name and the epoch it set. */
export interface EngineFence {
  name: string;
  epoch: bigint;
}

/** SQLSTATE raised by a commit whose fence epoch was superseded. */
const FENCE_LOST = 'EF001';

export const isFenceLost = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === FENCE_LOST;

/**
 * Moves the fence past every earlier holder's epoch and returns the new one. Run after
 * taking the lock and before reading any state, so whatever the previous holder committed
 * is read, and nothing it sends afterwards is stored.
 */
export async function advanceEngineFence(sql: SqlQueryable, name: string): Promise<EngineFence> {
  const [row] = await sql.query<{ epoch: string }>(
    `INSERT INTO "EngineFence" (name, epoch) VALUES ($1, 1) ON CONFLICT (name) DO UPDATE SET epoch = "EngineFence".epoch + 1 RETURNING epoch::text AS epoch`,
    [name],
  );
  return { name, epoch: BigInt((row as { epoch: string }).epoch) };
}
