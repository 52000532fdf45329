import type { Db } from '../../infra/database.ts';
import type { LegRow, OrderRow, RiskLegRow, TradeRow, TransferRow, WriteSet } from './writeSet.ts';

const s = (v: bigint | number | null | undefined) => (v === null || v === undefined ? null : v.toString());

const UPDATE_ORDERS = `
UPDATE "Order" AS o SET
  status = u.status::"OrderStatus", "isOpen" = u.is_open, "closeReason" = u.close_reason::"OrderCloseReason",
  "cumQty" = u.cum_qty, "leavesQty" = u.leaves_qty, "origQty" = u.orig_qty, price = u.price,
  "cumNotionalQ9" = u.cum_notional, "heldE18" = u.held, version = u.version,
  "terminalAt" = u.terminal_at, "prioritySeq" = u.priority_seq, "updatedAt" = now()
FROM (SELECT * FROM unnest(
  $1::text[]::bigint[], $2::text[], $3::boolean[], $4::text[], $5::text[]::bigint[], $6::text[]::bigint[],
  $7::text[]::bigint[], $8::text[]::bigint[], $9::text[]::numeric[], $10::text[]::numeric[], $11::int[],
  $12::text[]::timestamptz[], $13::text[]::bigint[]
) AS t(id, status, is_open, close_reason, cum_qty, leaves_qty, orig_qty, price, cum_notional, held, version, terminal_at, priority_seq)) AS u
WHERE o.id = u.id`;

// Deltas, applied in one statement; sorted keys give every transaction the same lock order.
const UPSERT_BALANCES = `
INSERT INTO "Balance" ("accountId", "ledgerAccount", "assetId", available, held, version, "updatedAt")
SELECT a, l::"LedgerAccount", s, av, h, 1, now()
FROM unnest($1::text[]::bigint[], $2::text[], $3::int[], $4::text[]::numeric[], $5::text[]::numeric[]) AS t(a, l, s, av, h)
ON CONFLICT ("accountId", "ledgerAccount", "assetId") DO UPDATE SET
  available = "Balance".available + EXCLUDED.available,
  held = "Balance".held + EXCLUDED.held,
  version = "Balance".version + 1,
  "updatedAt" = now()`;

const UPSERT_CLIENT_ORDER_IDS = `
INSERT INTO "ClientOrderIdReservation" ("accountId", "clientOrderId", "orderId", "createdAt", "expiresAt")
SELECT a, c, o, ca, ea FROM unnest($1::text[]::bigint[], $2::text[], $3::text[]::bigint[], $4::text[]::timestamptz[], $5::text[]::timestamptz[]) AS t(a, c, o, ca, ea)
ON CONFLICT ("accountId", "clientOrderId") DO UPDATE SET
  "orderId" = EXCLUDED."orderId", "createdAt" = EXCLUDED."createdAt", "expiresAt" = EXCLUDED."expiresAt"`;

type SqlType = 'bigint' | 'int' | 'text' | 'boolean' | 'numeric' | 'timestamptz' | `"${string}"`;
type Value = bigint | number | string | boolean | Date | null | undefined;

/**
 * A multi-row INSERT from one array per column (`unnest`): one statement and a handful
 * of parameters whatever the row count. Prisma's createMany renders every row and value
 * and costs about a millisecond of CPU per row here, which bounded order entry.
 */
async function insertRows<R>(tx: Tx, table: string, columns: [keyof R & string, SqlType][], rows: R[]): Promise<void> {
  if (rows.length === 0) return;
  const names = columns.map(([c]) => `"${c}"`).join(', ');
  const casts = columns.map(([, t], i) => (t === 'boolean' ? `$${i + 1}::boolean[]` : t === 'text' ? `$${i + 1}::text[]` : `$${i + 1}::text[]::${t}[]`)).join(', ');
  const params = columns.map(([c, t]) =>
    rows.map((r) => {
      const v = r[c] as Value;
      if (v === null || v === undefined) return null;
      if (t === 'boolean') return v;
      return v instanceof Date ? v.toISOString() : String(v);
    }),
  );
  await tx.$executeRawUnsafe(`INSERT INTO "${table}" (${names}) SELECT * FROM unnest(${casts})`, ...params);
}

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

const ORDER_COLUMNS: [keyof OrderRow & string, SqlType][] = [
  ['id', 'bigint'], ['publicId', 'text'], ['accountId', 'bigint'], ['symbolId', 'int'], ['clientOrderId', 'text'],
  ['side', '"Side"'], ['orderType', '"OrderType"'], ['tif', '"TimeInForce"'], ['status', '"OrderStatus"'], ['isOpen', 'boolean'],
  ['closeReason', '"OrderCloseReason"'], ['price', 'bigint'], ['origQty', 'bigint'], ['cumQty', 'bigint'], ['leavesQty', 'bigint'],
  ['inheritedCumQty', 'bigint'], ['cumNotionalQ9', 'numeric'], ['feeAsset', '"FeeAsset"'], ['postOnly', 'boolean'], ['stpMode', '"StpMode"'],
  ['expireAt', 'timestamptz'], ['expireAtTsNs', 'bigint'], ['createdAt', 'timestamptz'], ['acceptedAtTsNs', 'bigint'], ['terminalAt', 'timestamptz'],
  ['lineageId', 'text'], ['generation', 'int'], ['replacesOrderId', 'bigint'], ['marketClientRefPrice', 'bigint'], ['marketMaxSlippageBps', 'int'],
  ['marketMaxSlippageTicks', 'int'], ['submittedMaxQuoteDebit', 'bigint'], ['version', 'int'], ['heldE18', 'numeric'], ['prioritySeq', 'bigint'],
  ['oco', 'boolean'],
];

const RISK_LEG_COLUMNS: [keyof RiskLegRow & string, SqlType][] = [
  ['orderId', 'bigint'], ['kind', '"AttachedRiskLegKind"'], ['triggerPrice', 'bigint'], ['childKind', '"ChildOrderKind"'], ['childLimitPrice', 'bigint'],
  ['childPostOnly', 'boolean'], ['activationPrice', 'bigint'], ['maxSlippageTicks', 'int'], ['maxSlippageBps', 'int'],
  ['trailingDistanceTicks', 'bigint'], ['trailingDistanceBps', 'int'], ['status', '"AttachedRiskLegStatus"'],
];

const TRANSFER_COLUMNS: [keyof TransferRow & string, SqlType][] = [
  ['id', 'bigint'], ['transferCode', '"TransferCode"'], ['timestampUs', 'bigint'], ['symbolId', 'int'], ['matchId', 'bigint'], ['memo', 'text'],
];

type LegInsert = LegRow & { transferId: bigint; timestampUs: bigint; symbolId: number | null; matchId: bigint | null };
const LEG_COLUMNS: [keyof LegInsert & string, SqlType][] = [
  ['transferId', 'bigint'], ['accountId', 'bigint'], ['ledgerAccount', '"LedgerAccount"'], ['assetId', 'int'], ['amount', 'numeric'],
  ['isDebit', 'boolean'], ['balanceAfter', 'numeric'], ['transferCode', '"TransferCode"'], ['timestampUs', 'bigint'], ['symbolId', 'int'],
  ['matchId', 'bigint'], ['sourceAccountId', 'bigint'], ['sourceKind', '"TransferSideKind"'], ['destinationAccountId', 'bigint'], ['destinationKind', '"TransferSideKind"'],
];

const TRADE_COLUMNS: [keyof TradeRow & string, SqlType][] = [
  ['symbolId', 'int'], ['matchId', 'bigint'], ['orderId', 'bigint'], ['accountId', 'bigint'], ['lineageId', 'text'], ['generation', 'int'],
  ['side', '"Side"'], ['price', 'bigint'], ['qty', 'bigint'], ['isMaker', 'boolean'], ['fee', 'numeric'], ['feeAsset', '"FeeAsset"'],
  ['feeIsRebate', 'boolean'], ['executedAt', 'timestamptz'], ['executedAtTsNs', 'bigint'], ['transferId', 'bigint'],
];

/**
 * The sequencer runs one commit at a time; under load it may wait for a pooled connection
 * behind reads, which must not fail the batch (Prisma's defaults are 2 s and 5 s).
 */
const COMMIT_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

/** Writes one batch in one transaction: all of it becomes durable, or none of it. */
export async function persistWriteSet(db: Db, ws: WriteSet): Promise<void> {
  if (ws.isEmpty) return;
  await db.$transaction(async (tx) => {
    await insertRows(tx, 'Order', ORDER_COLUMNS, [...ws.newOrders.values()]);
    await insertRows(tx, 'AttachedRiskLeg', RISK_LEG_COLUMNS, ws.riskLegs);
    if (ws.changedOrders.size > 0) {
      const rows = [...ws.changedOrders.values()];
      await tx.$executeRawUnsafe(
        UPDATE_ORDERS,
        rows.map((o) => s(o.id)),
        rows.map((o) => o.status),
        rows.map((o) => o.isOpen),
        rows.map((o) => o.closeReason),
        rows.map((o) => s(o.cumQty)),
        rows.map((o) => s(o.leavesQty)),
        rows.map((o) => s(o.origQty)),
        rows.map((o) => s(o.price)),
        rows.map((o) => s(o.cumNotionalQ9)),
        rows.map((o) => s(o.heldE18)),
        rows.map((o) => o.version),
        rows.map((o) => o.terminalAt?.toISOString() ?? null),
        rows.map((o) => s(o.prioritySeq)),
      );
    }
    await insertRows(tx, 'LedgerTransfer', TRANSFER_COLUMNS, ws.transfers);
    await insertRows(
      tx,
      'LedgerTransferLeg',
      LEG_COLUMNS,
      ws.transfers.flatMap((t) => t.legs.map((l) => ({ ...l, transferId: t.id, timestampUs: t.timestampUs, symbolId: t.symbolId, matchId: t.matchId }))),
    );
    await insertRows(tx, 'Trade', TRADE_COLUMNS, ws.trades);
    if (ws.balances.size > 0) {
      const deltas = [...ws.balances.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
      await tx.$executeRawUnsafe(
        UPSERT_BALANCES,
        deltas.map((d) => s(d.accountId)),
        deltas.map((d) => d.ledgerAccount),
        deltas.map((d) => d.assetId),
        deltas.map((d) => s(d.available)),
        deltas.map((d) => s(d.held)),
      );
    }
    for (const [symbolId, seq] of ws.sequences) {
      await tx.marketSequence.update({
        where: { symbolId },
        data: { lastMatchId: seq.lastMatchId, lastPrioritySeq: seq.lastPrioritySeq, lastBookSeq: seq.lastBookSeq },
      });
    }
    if (ws.clientOrderIds.length > 0) {
      const r = ws.clientOrderIds;
      await tx.$executeRawUnsafe(
        UPSERT_CLIENT_ORDER_IDS,
        r.map((x) => s(x.accountId)),
        r.map((x) => x.clientOrderId),
        r.map((x) => s(x.orderId)),
        r.map((x) => x.createdAt.toISOString()),
        r.map((x) => x.expiresAt.toISOString()),
      );
    }
  }, COMMIT_OPTIONS);
}
