import { decimalToBigInt } from '../../../../domain/money.ts';
import { Prisma } from '../../../../generated/prisma/client.ts';
import { presentFill } from '../../../../presenters/fill.ts';
import { marketOf } from '../../markets.ts';
import type { TradeLike } from '../../../../services/trading/index.ts';
import type { GraphQLContext } from '../../context.ts';

/** What the Fill type reads of its trade row: the columns its presenter renders. */
export const FILL_SELECT = {
  symbolId: true,
  matchId: true,
  orderId: true,
  accountId: true,
  lineageId: true,
  generation: true,
  side: true,
  price: true,
  qty: true,
  isMaker: true,
  fee: true,
  feeAsset: true,
  feeIsRebate: true,
  referralShare: true,
  executedAt: true,
  executedAtTsNs: true,
} as const satisfies Prisma.TradeSelect;
export type FillRow = Prisma.TradeGetPayload<{ select: typeof FILL_SELECT }>;

/**
 * What the service answers beside a row: its order's public id (trades carry no foreign
 * keys, so the service looks the page's orders up in one statement) and, for a
 * subscription event, its place in the journal.
 */
const notes = new WeakMap<FillRow, { orderPublicId: string; sequence?: bigint }>();
const presented = new WeakMap<FillRow, ReturnType<typeof presentFill>>();

/** A fill the service answered (the table's row, or the engine's for a subscription event) as the Fill type's row. */
export function fillRow(trade: TradeLike, orderPublicId: string, sequence?: bigint): FillRow {
  const row: FillRow = {
    ...trade,
    fee: new Prisma.Decimal(decimalToBigInt(trade.fee).toString()),
    referralShare: new Prisma.Decimal(decimalToBigInt(trade.referralShare ?? 0n).toString()),
  };
  notes.set(row, { orderPublicId, ...(sequence !== undefined ? { sequence } : {}) });
  return row;
}

function noteOf(row: FillRow) {
  const note = notes.get(row);
  if (!note) throw new Error(`fill ${row.symbolId}/${row.matchId} reached GraphQL without its order (rows come through fillRow)`);
  return note;
}

/** The journal sequence of a subscription event; none for a stored fill. */
export const sequenceOf = (row: FillRow) => noteOf(row).sequence ?? null;

/** A row's /v1 shape, made once per row however many of its fields a query asks for. */
export function fillShape(row: FillRow, ctx: GraphQLContext): ReturnType<typeof presentFill> {
  let shape = presented.get(row);
  if (!shape) {
    shape = presentFill(row, marketOf(ctx, row), noteOf(row).orderPublicId);
    presented.set(row, shape);
  }
  return shape;
}
