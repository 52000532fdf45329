import { invalidArgument } from '../../domain/errors.ts';
import { misfitCode, rowMisfit, type RowMisfit } from '../../infra/columnLimits.ts';
import {
  BALANCE_COLUMNS,
  FLOW_COLUMNS,
  LEG_COLUMNS,
  legInsert,
  ORDER_CHANGE_COLUMNS,
  ORDER_COLUMNS,
  RESERVATION_COLUMNS,
  RISK_LEG_COLUMNS,
  SEQUENCE_COLUMNS,
  SWITCH_COLUMNS,
  TRADE_COLUMNS,
  TRANSFER_COLUMNS,
  TRIGGER_COLUMNS,
  TRIGGER_EVENT_COLUMNS,
  WITHDRAW_INTENT_COLUMNS,
  WITHDRAW_STATUS_COLUMNS,
  type Columns,
} from './persist.ts';
import type { WriteSet } from './writeSet.ts';

const names = <R>(columns: Columns<R>) => columns.map(([c]) => c);

/** Every table the projection writes, with the columns it writes: the same lists persist.ts builds its statement from. */
const TABLES = {
  order: ['Order', names(ORDER_COLUMNS)],
  orderChange: ['Order', names(ORDER_CHANGE_COLUMNS)],
  riskLeg: ['AttachedRiskLeg', names(RISK_LEG_COLUMNS)],
  transfer: ['LedgerTransfer', names(TRANSFER_COLUMNS)],
  leg: ['LedgerTransferLeg', names(LEG_COLUMNS)],
  trade: ['Trade', names(TRADE_COLUMNS)],
  balance: ['Balance', names(BALANCE_COLUMNS)],
  sequence: ['MarketSequence', names(SEQUENCE_COLUMNS)],
  reservation: ['ClientOrderIdReservation', names(RESERVATION_COLUMNS)],
  trigger: ['Trigger', names(TRIGGER_COLUMNS)],
  triggerEvent: ['TriggerEvent', names(TRIGGER_EVENT_COLUMNS)],
  switch: ['DeadManSwitch', names(SWITCH_COLUMNS)],
  withdrawIntent: ['WithdrawIntent', names(WITHDRAW_INTENT_COLUMNS)],
  withdrawStatus: ['WithdrawIntent', names(WITHDRAW_STATUS_COLUMNS)],
  flow: ['LifecycleFlow', names(FLOW_COLUMNS)],
} as const satisfies Record<string, readonly [string, readonly string[]]>;

function first(table: keyof typeof TABLES, rows: Iterable<object>): RowMisfit | null {
  const [model, columns] = TABLES[table];
  for (const row of rows) {
    const bad = rowMisfit(model, columns, row as Record<string, unknown>);
    if (bad) return bad;
  }
  return null;
}

/**
 * The first value of `ws` its table cannot hold (a number past its column's range, text an
 * index cannot hold, U+0000 in text or JSON), or null. Balances are checked as the deltas
 * the write set adds; the sums stay far inside numeric(78, 0) (MAX_LEDGER_AMOUNT_E18).
 */
export function writeSetMisfit(ws: WriteSet): RowMisfit | null {
  return (
    first('order', ws.newOrders.values()) ??
    first('orderChange', ws.changedOrders.values()) ??
    first('riskLeg', ws.riskLegs) ??
    first('transfer', ws.transfers) ??
    first('leg', (function* () {
      for (const t of ws.transfers) for (const l of t.legs) yield legInsert(t, l);
    })()) ??
    first('trade', ws.trades) ??
    first('balance', ws.balances.values()) ??
    first('sequence', [...ws.sequences].map(([symbolId, s]) => ({ symbolId, ...s }))) ??
    first('reservation', ws.clientOrderIds) ??
    first('trigger', ws.triggers.values()) ??
    first('triggerEvent', ws.triggerEvents) ??
    first('switch', ws.switches.values()) ??
    first('withdrawIntent', ws.withdrawIntents.values()) ??
    first('withdrawStatus', ws.withdrawStatuses.values()) ??
    first('flow', ws.flows)
  );
}

/** The refusal of a job whose changes a table cannot hold: 400, naming the column. */
export const misfitError = (m: RowMisfit) => invalidArgument(`${m.model}.${m.column}`, `a value the request leads to ${m.reason}`, 'storable', misfitCode(m.reason));
