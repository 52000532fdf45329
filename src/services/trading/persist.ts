import type { Db } from '../../infra/database.ts';
import type { OrderRow, WriteSet } from './writeSet.ts';

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

/** Writes one batch in one transaction: all of it becomes durable, or none of it. */
export async function persistWriteSet(db: Db, ws: WriteSet): Promise<void> {
  if (ws.isEmpty) return;
  await db.$transaction(async (tx) => {
    if (ws.newOrders.size > 0) {
      await tx.order.createMany({
        // Rows in memory carry extra fields (the owner's public id): keep only the columns.
        data: [...ws.newOrders.values()].map(({ accountPublicId: _owner, ...o }: OrderRow & { accountPublicId?: string }) => ({
          ...o,
          cumNotionalQ9: o.cumNotionalQ9.toString(),
          heldE18: o.heldE18.toString(),
        })),
      });
    }
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
    if (ws.transfers.length > 0) {
      await tx.ledgerTransfer.createMany({
        data: ws.transfers.map((t) => ({
          id: t.id,
          transferCode: t.transferCode,
          timestampUs: t.timestampUs,
          symbolId: t.symbolId,
          matchId: t.matchId,
          memo: t.memo,
        })),
      });
      await tx.ledgerTransferLeg.createMany({
        data: ws.transfers.flatMap((t) =>
          t.legs.map((l) => ({
            ...l,
            amount: l.amount.toString(),
            balanceAfter: l.balanceAfter.toString(),
            transferId: t.id,
            timestampUs: t.timestampUs,
            symbolId: t.symbolId,
            matchId: t.matchId,
          })),
        ),
      });
    }
    if (ws.trades.length > 0) {
      await tx.trade.createMany({ data: ws.trades.map((t) => ({ ...t, fee: t.fee.toString() })) });
    }
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
  });
}
