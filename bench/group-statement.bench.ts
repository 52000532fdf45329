import { writeSetStatement } from '../src/services/trading/persist.ts';
import { WriteSet, type LegRow, type OrderVersion } from '../src/services/trading/writeSet.ts';
import { measure, table } from './harness.ts';

const ORDERS = 200;

/**
 * A group as the order benchmark commits them at saturation: 200 new orders, every second
 * one filling a resting order (its update, a transfer of eight legs, two trade rows), each
 * with a client order id reservation.
 */
function group(): WriteSet {
  const ws = new WriteSet();
  const now = new Date();
  const nowNs = BigInt(now.getTime()) * 1_000_000n;
  for (let i = 0; i < ORDERS; i++) {
    const id = 1_800_000_000_000_000n + BigInt(i);
    const order: OrderVersion = {
      id, accountPublicId: 'Acc17', publicId: `Ord${i}xYz`, accountId: 17n, symbolId: 1, clientOrderId: `bench-${i}`, side: 'BUY', orderType: 'LIMIT', tif: 'GTC',
      status: 'NEW', isOpen: true, closeReason: null, price: 30_000_000_000_000n, origQty: 1_000n, cumQty: 0n, leavesQty: 1_000n,
      inheritedCumQty: 0n, cumNotionalQ9: 0n, inheritedNotionalQ9: 0n, feeAsset: 'QUOTE', postOnly: false, stpMode: 'EXPIRE_MAKER',
      expireAt: null, expireAtTsNs: null, createdAt: now, acceptedAtTsNs: nowNs, terminalAt: null, lineageId: `Lin${i}`, generation: 0,
      replacesOrderId: null, marketClientRefPrice: null, marketMaxSlippageBps: null, marketMaxSlippageTicks: null, submittedMaxQuoteDebit: null,
      version: 1, heldE18: 30_045_000_000_000_000_000n, prioritySeq: BigInt(i), oco: false, originScope: 'DIRECT', originTriggerId: null, originTriggerType: null, childSeq: 0,
    };
    ws.newOrders.set(id, order);
    ws.clientOrderIds.push({ accountId: 17n, clientOrderId: `bench-${i}`, orderId: id, createdAt: now, expiresAt: now });
    if (i % 2 === 0) continue;
    ws.changedOrders.set(id - 1_000_000n, { ...order, id: id - 1_000_000n, status: 'FILLED', isOpen: false, terminalAt: now, version: 2 });
    const legs: LegRow[] = Array.from({ length: 8 }, (_, k) => ({
      accountId: 17n + BigInt(k % 2), ledgerAccount: 'TRADING', assetId: 1 + (k % 2), amount: 30_000_000_000_000_000_000n, isDebit: k % 2 === 0,
      balanceAfter: 123_456_789_000_000_000_000n, transferCode: 'TRADE', sourceAccountId: 17n, sourceKind: 'TRADING_ACCOUNT', destinationAccountId: null, destinationKind: 'EXCHANGE',
    }));
    ws.transfers.push({ id: id + 5n, transferCode: 'TRADE', timestampUs: nowNs / 1000n, symbolId: 1, matchId: BigInt(i), memo: null, flowId: null, legs });
    for (const isMaker of [true, false]) {
      ws.trades.push({
        symbolId: 1, matchId: BigInt(i), orderId: id, accountId: 17n, lineageId: `Lin${i}`, generation: 0, side: 'BUY', price: 30_000_000_000_000n, qty: 1_000n,
        isMaker, fee: 45_000_000_000_000n, feeAsset: 'QUOTE', feeIsRebate: false, executedAt: now, executedAtTsNs: nowNs, transferId: id + 5n,
      });
    }
  }
  ws.balance(17n, 'TRADING', 1, -5n, 6n);
  ws.balance(18n, 'TRADING', 2, 5n, -6n);
  ws.sequences.set(1, { lastMatchId: 200n, lastPrioritySeq: 200n, lastBookSeq: 400n });
  return ws;
}

/** Every value of the group's rows as text, one String() each: the least any text encoding does. */
function plainText(ws: WriteSet): number {
  let out = '';
  const rows = [...ws.newOrders.values(), ...ws.changedOrders.values(), ...ws.trades, ...ws.clientOrderIds, ...ws.transfers.flatMap((t) => t.legs)];
  for (const row of rows) for (const v of Object.values(row)) out += `${v instanceof Date ? v.getTime() : String(v)},`;
  return out.length;
}

/** Building the one-statement group commit (src/services/trading/persist.ts), which runs on the event loop. */
export async function run(): Promise<string> {
  const ws = group();
  const step = { name: 'trading', from: 0n, to: 1n };
  const baseline = await measure('baseline: String() of every value of the same rows', () => plainText(ws), { ms: 2000 });
  const built = await measure('writeSetStatement', () => writeSetStatement(ws, step), { ms: 2000 });
  const perOrderUs = 1e6 / built.opsPerSec / ORDERS;
  return [
    `### Group statement (src/services/trading/persist.ts)\n\nOne group of ${ORDERS} orders, half of them filling (${ws.transfers.length * 8} ledger legs, ${ws.trades.length} trade rows), built as the commit's statement text and array parameters; ops/s are groups per second.\n\n${table([baseline, built], baseline)}`,
    `About ${perOrderUs.toFixed(1)} µs of the event loop per order.`,
  ].join('\n\n');
}
