import { presentTrigger } from '../../../../presenters/trigger.ts';
import { decimalToBigInt } from '../../../../domain/money.ts';
import { Prisma } from '../../../../generated/prisma/client.ts';
import type { TriggerLike } from '../../../../services/trading/index.ts';
import type { GraphQLContext } from '../../context.ts';
import { marketOf } from '../../markets.ts';
import { orderPublicId } from '../../orderIds.ts';
import type { TriggerShape } from './shapes.ts';

/** What the Trigger type reads of its row: the columns its presenter renders. */
export const TRIGGER_SELECT = {
  id: true,
  publicId: true,
  accountId: true,
  parentOrderId: true,
  clientTriggerId: true,
  symbolId: true,
  triggerType: true,
  status: true,
  side: true,
  qty: true,
  feeAsset: true,
  stpMode: true,
  cancelReason: true,
  failureReason: true,
  triggerDirection: true,
  triggerPrice: true,
  childKind: true,
  childLimitPrice: true,
  childPostOnly: true,
  maxSlippageTicks: true,
  maxSlippageBps: true,
  cumFilledQty: true,
  lastChildSeq: true,
  firePx: true,
  version: true,
  heldE18: true,
  acceptedAtTsNs: true,
  createdAt: true,
  updatedAt: true,
  armedAt: true,
  completedAt: true,
  terminalAt: true,
  params: true,
  state: true,
} as const satisfies Prisma.TriggerSelect;
export type TriggerRow = Prisma.TriggerGetPayload<{ select: typeof TRIGGER_SELECT }>;

/**
 * What the service answered beside a row: the public id of the account it belongs to (every
 * row a service answers is of the one account it checked, so it is not read again for each
 * row) and, when the service read it, its parent order's.
 */
const notes = new WeakMap<TriggerRow, { account: string; parentOrderId?: string }>();
const presented = new WeakMap<TriggerRow, TriggerShape>();

/** A trigger the service answered (the table's row or the engine's) as the Trigger type's row, with its account. */
export function triggerRow(trigger: TriggerLike & { parentOrder?: { publicId: string } | null }, account: string): TriggerRow {
  const row: TriggerRow = {
    ...trigger,
    heldE18: new Prisma.Decimal(decimalToBigInt(trigger.heldE18).toString()),
    // The engine keeps params and state as JSON text, the table as JSON.
    params: (typeof trigger.params === 'string' ? JSON.parse(trigger.params) : trigger.params) as Prisma.JsonValue,
    state: (typeof trigger.state === 'string' ? JSON.parse(trigger.state) : trigger.state) as Prisma.JsonValue,
  };
  notes.set(row, { account, ...(trigger.parentOrder ? { parentOrderId: trigger.parentOrder.publicId } : {}) });
  return row;
}

function noteOf(row: TriggerRow) {
  const note = notes.get(row);
  if (note === undefined) throw new Error(`trigger ${row.publicId} reached GraphQL without its account (rows come through triggerRow)`);
  return note;
}

/** The public id of the account a row belongs to. */
export const accountOf = (row: TriggerRow) => noteOf(row).account;

/** The public id of the order an attached-risk trigger protects; empty for a standalone trigger. */
export async function parentOrderIdOf(row: TriggerRow, ctx: GraphQLContext): Promise<string> {
  if (row.parentOrderId === null) return '';
  return noteOf(row).parentOrderId ?? orderPublicId(ctx, row.parentOrderId);
}

/** A row's /v1 shape, made once per row however many of its fields a query asks for. */
export function triggerShape(row: TriggerRow, ctx: GraphQLContext): TriggerShape {
  let shape = presented.get(row);
  if (!shape) {
    shape = presentTrigger({ trigger: row, market: marketOf(ctx, row), account: accountOf(row) });
    presented.set(row, shape);
  }
  return shape;
}
