import { invalidArgument } from '../../domain/errors.ts';
import { misfitFactory, rowChecker, type RowMisfit } from '../../infra/columnLimits.ts';
import {
  BALANCE_COLUMNS,
  FLOW_COLUMNS,
  FLOW_UPDATE_COLUMNS,
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
  order: rowChecker('Order', names(ORDER_COLUMNS)),
  orderChange: rowChecker('Order', names(ORDER_CHANGE_COLUMNS)),
  riskLeg: rowChecker('AttachedRiskLeg', names(RISK_LEG_COLUMNS)),
  transfer: rowChecker('LedgerTransfer', names(TRANSFER_COLUMNS)),
  leg: rowChecker('LedgerTransferLeg', names(LEG_COLUMNS)),
  trade: rowChecker('Trade', names(TRADE_COLUMNS)),
  balance: rowChecker('Balance', names(BALANCE_COLUMNS)),
  sequence: rowChecker('MarketSequence', names(SEQUENCE_COLUMNS)),
  reservation: rowChecker('ClientOrderIdReservation', names(RESERVATION_COLUMNS)),
  trigger: rowChecker('Trigger', names(TRIGGER_COLUMNS)),
  triggerEvent: rowChecker('TriggerEvent', names(TRIGGER_EVENT_COLUMNS)),
  switch: rowChecker('DeadManSwitch', names(SWITCH_COLUMNS)),
  withdrawIntent: rowChecker('WithdrawIntent', names(WITHDRAW_INTENT_COLUMNS)),
  withdrawStatus: rowChecker('WithdrawIntent', names(WITHDRAW_STATUS_COLUMNS)),
  flow: rowChecker('LifecycleFlow', names(FLOW_COLUMNS)),
  flowUpdate: rowChecker('LifecycleFlow', names(FLOW_UPDATE_COLUMNS)),
};

function first(table: keyof typeof TABLES, rows: Iterable<object>): RowMisfit | null {
  const check = TABLES[table];
  for (const row of rows) {
    const bad = check(row as Record<string, unknown>);
    if (bad) return bad;
  }
  return null;
}

function legsMisfit(ws: WriteSet): RowMisfit | null {
  for (const t of ws.transfers) {
    for (const l of t.legs) {
      const bad = TABLES.leg(legInsert(t, l) as unknown as Record<string, unknown>);
      if (bad) return bad;
    }
  }
  return null;
}

function sequencesMisfit(ws: WriteSet): RowMisfit | null {
  for (const [symbolId, s] of ws.sequences) {
    const bad = TABLES.sequence({ symbolId, ...s });
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
    legsMisfit(ws) ??
    first('trade', ws.trades) ??
    first('balance', ws.balances.values()) ??
    sequencesMisfit(ws) ??
    first('reservation', ws.clientOrderIds) ??
    first('trigger', ws.triggers.values()) ??
    first('triggerEvent', ws.triggerEvents) ??
    first('switch', ws.switches.values()) ??
    first('withdrawIntent', ws.withdrawIntents.values()) ??
    first('withdrawStatus', ws.withdrawStatuses.values()) ??
    first('flow', ws.flows) ??
    first('flowUpdate', ws.flowUpdates.values())
  );
}

/** The refusal of a job whose changes a table cannot hold: 400, naming the column. */
export const misfitError = (m: RowMisfit) => invalidArgument(`${m.model}.${m.column}`, `a value the request leads to ${m.reason}`, 'storable', misfitFactory(m.reason));
