import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEntry, encodeEntry } from '../../src/services/trading/journal.ts';
import { EVENT_BITS, entryEvents, entryMarketEvents } from '../../src/services/trading/streams.ts';
import { switchKey, WriteSet, type BalanceAfterRow, type BookLevelRow, type FlowRow, type FlowUpdateRow, type WithdrawIntentRow, type WithdrawStatusRow, type LegRow, type OrderVersion, type SwitchRow, type TradeRow, type TriggerEventRow, type TriggerRow } from '../../src/services/trading/writeSet.ts';

/**
 * A journal entry must give back exactly the write set that was acknowledged: the
 * projection, recovery and stream replays are all built from the decoded entry.
 */
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const e18 = fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n });
const id = fc.bigInt({ min: 1n, max: 2n ** 62n });
const date = fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true });
const text = fc.string({ maxLength: 12 });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });

const version: fc.Arbitrary<OrderVersion> = fc.record({
  id, accountPublicId: text, publicId: text, accountId: id, symbolId: fc.integer({ min: 1, max: 1000 }), clientOrderId: maybe(text),
  side: fc.constantFrom('BUY', 'SELL'), orderType: fc.constantFrom('LIMIT', 'MARKET'), tif: fc.constantFrom('GTC', 'GTD', 'IOC', 'FOK'),
  status: fc.constantFrom('NEW', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'EXPIRED', 'REPLACED'), isOpen: fc.boolean(),
  closeReason: maybe(fc.constantFrom('USER_CANCELED', 'IOC_REMAINDER', 'REPLACED')), price: int64, origQty: int64, cumQty: int64, leavesQty: int64,
  inheritedCumQty: int64, cumNotionalQ9: e18, inheritedNotionalQ9: e18, feeAsset: fc.constantFrom('BASE', 'QUOTE'), postOnly: fc.boolean(),
  stpMode: fc.constantFrom('EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'NONE'), expireAt: maybe(date), expireAtTsNs: maybe(int64), createdAt: date,
  acceptedAtTsNs: int64, terminalAt: maybe(date), lineageId: text, generation: fc.integer({ min: 1, max: 1e6 }), replacesOrderId: maybe(id),
  marketClientRefPrice: maybe(int64), marketMaxSlippageBps: maybe(fc.integer({ min: 0, max: 10_000 })), marketMaxSlippageTicks: maybe(fc.integer({ min: 0, max: 1e6 })),
  submittedMaxQuoteDebit: maybe(int64), version: fc.integer({ min: 0, max: 1e6 }), heldE18: e18, prioritySeq: int64, oco: fc.boolean(),
  originScope: fc.constantFrom('DIRECT', 'TRIGGER'), originTriggerId: maybe(id), originTriggerType: maybe(fc.constantFrom('STOP_LOSS', 'TAKE_PROFIT')), childSeq: fc.integer({ min: 0, max: 1e6 }),
}) as fc.Arbitrary<OrderVersion>;

const trigger: fc.Arbitrary<TriggerRow> = fc.record({
  id, publicId: text, accountId: id, clientTriggerId: maybe(text), symbolId: fc.integer({ min: 1, max: 1000 }), triggerType: fc.constantFrom('STOP_LOSS', 'TAKE_PROFIT'),
  status: fc.constantFrom('ARMED', 'COMPLETED', 'CANCELED', 'FAILED'), side: fc.constantFrom('BUY', 'SELL'), qty: int64, feeAsset: fc.constantFrom('BASE', 'QUOTE'),
  stpMode: fc.constantFrom('EXPIRE_MAKER', 'NONE'), cancelReason: maybe(fc.constantFrom('USER_REQUEST')), failureReason: maybe(fc.constantFrom('CHILD_REJECTED')),
  triggerDirection: fc.constantFrom('ABOVE', 'BELOW'), triggerPrice: int64, childKind: fc.constantFrom('MARKET_IOC', 'LIMIT'), childLimitPrice: maybe(int64), childPostOnly: fc.boolean(),
  maxSlippageTicks: maybe(fc.integer({ min: 1, max: 1e6 })), maxSlippageBps: maybe(fc.integer({ min: 1, max: 10_000 })), cumFilledQty: int64, lastChildSeq: fc.integer({ min: 0, max: 1e6 }),
  firePx: maybe(int64), version: fc.integer({ min: 1, max: 1e6 }), heldE18: e18, acceptedAtTsNs: int64, createdAt: date, updatedAt: date, armedAt: maybe(date), completedAt: maybe(date), terminalAt: maybe(date), parentOrderId: maybe(id),
  params: fc.constantFrom('{}', '{"activationPrice":null,"trailingDistanceTicks":"5","trailingDistanceBps":null}'), state: fc.constantFrom('{}', '{"active":true,"extreme":"1","threshold":"0"}'),
}) as fc.Arbitrary<TriggerRow>;

const triggerEvent: fc.Arbitrary<TriggerEventRow> = fc.record({
  triggerId: id, eventType: fc.constantFrom('CREATED', 'FIRED', 'COMPLETED'), triggerType: fc.constantFrom('STOP_LOSS', 'TAKE_PROFIT'), accountId: id, symbolId: fc.integer({ min: 1, max: 1000 }),
  childOrderId: maybe(id), childSeq: fc.integer({ min: 0, max: 1e6 }), firePx: maybe(int64), cancelReason: maybe(fc.constantFrom('USER_REQUEST')), failureReason: maybe(fc.constantFrom('NO_LIQUIDITY')), tsNs: int64,
  triggerPublicId: text, accountPublicId: text, childOrderPublicId: maybe(text),
}) as fc.Arbitrary<TriggerEventRow>;

const trade: fc.Arbitrary<TradeRow> = fc.record({
  symbolId: fc.integer({ min: 1, max: 1000 }), matchId: id, orderId: id, accountId: id, lineageId: text, generation: fc.integer({ min: 1, max: 1e6 }),
  side: fc.constantFrom('BUY', 'SELL'), price: int64, qty: int64, isMaker: fc.boolean(), fee: e18, feeAsset: fc.constantFrom('BASE', 'QUOTE'),
  feeIsRebate: fc.boolean(), executedAt: date, executedAtTsNs: int64, transferId: id,
}) as fc.Arbitrary<TradeRow>;

const bookLevel: fc.Arbitrary<BookLevelRow> = fc.record({
  symbolId: fc.integer({ min: 1, max: 1000 }), sequence: id, side: fc.constantFrom('BUY', 'SELL'), price: int64, qty: int64,
}) as fc.Arbitrary<BookLevelRow>;

const leg: fc.Arbitrary<LegRow> = fc.record({
  accountId: id, ledgerAccount: fc.constantFrom('TRADING', 'FUNDING'), assetId: fc.integer({ min: 1, max: 100 }), amount: e18, isDebit: fc.boolean(),
  balanceAfter: e18, transferCode: fc.constantFrom('TRADE', 'FEE', 'DEPOSIT'), sourceAccountId: maybe(id), sourceKind: maybe(fc.constantFrom('TRADING_ACCOUNT', 'EXCHANGE')),
  destinationAccountId: maybe(id), destinationKind: maybe(fc.constantFrom('TRADING_ACCOUNT', 'EXTERNAL_ADDRESS')),
}) as fc.Arbitrary<LegRow>;

const deadManSwitch: fc.Arbitrary<SwitchRow> = fc.record({
  accountId: fc.bigInt({ min: 1n, max: 3n }), symbolId: fc.integer({ min: 0, max: 2 }), side: fc.constantFrom('ANY', 'BUY', 'SELL'),
  status: fc.constantFrom('ARMED', 'DISABLED'), timeoutSec: fc.integer({ min: 0, max: 120 }), expiresAtTsNs: int64, requestId: text,
  armedAt: maybe(date), lastFiredAtTsNs: maybe(int64),
}) as fc.Arbitrary<SwitchRow>;

const hex = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('hex'));
const withdrawIntent: fc.Arbitrary<WithdrawIntentRow> = fc.record({
  id, publicId: text, accountId: id, action: fc.constantFrom('TO_FUNDING', 'TO_EXTERNAL_CHAIN'), authorization: fc.constantFrom('API_KEY', 'WALLET'), apiKeyId: maybe(id),
  signerWallet: maybe(text), amount: e18, fee: e18, assetId: fc.integer({ min: 1, max: 9 }), deadlineTsSec: int64, destinationAddress: maybe(text),
  destinationChainId: maybe(fc.integer({ min: 1, max: 1e6 })), destinationAccountId: maybe(id), idempotencyKey: text, nonce: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
  payload: hex, payloadHash: hex, payloadSignature: hex, status: fc.constantFrom('ACCEPTED', 'COMPLETED', 'REJECTED'), failureReason: maybe(text), flowId: id, createdAt: date, updatedAt: date,
}) as fc.Arbitrary<WithdrawIntentRow>;
const withdrawStatus: fc.Arbitrary<WithdrawStatusRow> = fc.record({ id, status: fc.constantFrom('COMPLETED', 'FAILED', 'EXPIRED'), failureReason: maybe(text), updatedAt: date }) as fc.Arbitrary<WithdrawStatusRow>;
const flow: fc.Arbitrary<FlowRow> = fc.record({
  id, publicId: text, ownerAccountId: id, rootAccountId: id, smartAccountAddress: maybe(text), flowKind: fc.constantFrom('WITHDRAW_TO_FUNDING', 'WITHDRAW_TO_EXTERNAL_CHAIN'),
  flowState: fc.constantFrom('PENDING_VALIDATION', 'COMPLETED'), currentStep: fc.constantFrom('VALIDATION', 'COMPLETE'), currentStepSequence: fc.integer({ min: 1, max: 4 }),
  unifiedAssetId: fc.integer({ min: 1, max: 9 }), zippedAssetId: maybe(fc.integer({ min: 1, max: 1e6 })), amountE18: e18, serviceChainId: maybe(fc.integer({ min: 1, max: 1e6 })),
  sourceDomain: fc.constant('TRADING'), destinationDomain: fc.constantFrom('FUNDING', 'EXTERNAL_CHAIN'), sourceAddress: maybe(text), destinationAddress: maybe(text),
  latestLifecycleSource: fc.constant('USER'), lifecycleReason: fc.constant(null), isOpen: fc.boolean(), isTerminal: fc.boolean(), startedAt: date, updatedAt: date, lastActivityAt: date,
  terminalAt: maybe(date), estimatedCompletionAt: maybe(date), currentProgress: fc.constantFrom('{}', '{"approveCount":1}'), progressTimeline: fc.constantFrom('[]', '[{"step":"SOURCE"}]'), requestFee: maybe(fc.constant('{"status":"LOCKED"}')),
  sourceTxHash: maybe(text), txOccurrenceIndex: maybe(text), latestTxRef: maybe(text), depositAddressId: maybe(id), version: fc.bigInt({ min: 1n, max: 1000n }),
}) as fc.Arbitrary<FlowRow>;
const flowUpdate: fc.Arbitrary<FlowUpdateRow> = fc.record({
  id, version: fc.bigInt({ min: 2n, max: 1000n }), flowState: fc.constantFrom('SOURCE_CONFIRMING', 'DROPPED'), currentStep: fc.constantFrom('CONFIRMATIONS', 'COMPLETE'), currentStepSequence: fc.integer({ min: 1, max: 4 }),
  lifecycleReason: fc.constantFrom(null, 'CHAIN_REORG'), isOpen: fc.boolean(), isTerminal: fc.boolean(), updatedAt: date, lastActivityAt: date, terminalAt: maybe(date), estimatedCompletionAt: maybe(date),
  currentProgress: fc.constantFrom('{}', '{"currentConfirmations":3}'), progressTimeline: fc.constant('[]'), requestFee: maybe(fc.constant('{"status":"LOCKED"}')),
  latestLifecycleSource: fc.constantFrom('INDEXER', 'RELAYER'), latestTxRef: maybe(text), sourceTxHash: maybe(text), txOccurrenceIndex: maybe(text),
}) as fc.Arbitrary<FlowUpdateRow>;

const writeSet = fc
  .record({
    versions: fc.array(fc.tuple(version, fc.boolean()), { maxLength: 6 }),
    trades: fc.array(trade, { maxLength: 4 }),
    bookLevels: fc.array(bookLevel, { maxLength: 4 }),
    transfers: fc.array(fc.record({ id, timestampUs: int64, symbolId: maybe(fc.integer({ min: 1, max: 9 })), matchId: maybe(id), memo: maybe(text), flowId: maybe(id), legs: fc.array(leg, { maxLength: 4 }) }), { maxLength: 3 }),
    balances: fc.array(fc.tuple(id, fc.integer({ min: 1, max: 9 }), e18, e18), { maxLength: 4 }),
    sequences: fc.array(fc.tuple(fc.integer({ min: 1, max: 9 }), int64, int64, int64), { maxLength: 3 }),
    reservations: fc.array(fc.record({ accountId: id, clientOrderId: text, orderId: id, createdAt: date, expiresAt: date }), { maxLength: 3 }),
    switches: fc.array(deadManSwitch, { maxLength: 3 }),
    triggers: fc.array(trigger, { maxLength: 3 }),
    triggerEvents: fc.array(triggerEvent, { maxLength: 3 }),
    withdrawals: fc.array(fc.tuple(withdrawIntent, flow), { maxLength: 2 }),
    withdrawEnds: fc.array(withdrawStatus, { maxLength: 2 }),
    flowSteps: fc.uniqueArray(flowUpdate, { maxLength: 2, selector: (u) => u.id }),
    balancesAfter: fc.array(fc.record({ accountId: id, accountPublicId: text, ledgerAccount: fc.constantFrom('TRADING', 'FUNDING'), assetId: fc.integer({ min: 1, max: 9 }), available: e18, held: e18 }), { maxLength: 4 }),
  })
  .map((g) => {
    const ws = new WriteSet();
    for (const [v, isNew] of g.versions) ws.order(v, isNew);
    for (const t of g.trades) ws.trades.push(t);
    for (const l of g.bookLevels) ws.bookLevels.push(l);
    for (const t of g.transfers) ws.transfers.push({ ...t, transferCode: 'TRADE' });
    for (const [accountId, assetId, available, held] of g.balances) ws.balance(accountId, 'TRADING', assetId, available, held);
    for (const [symbolId, lastMatchId, lastPrioritySeq, lastBookSeq] of g.sequences) ws.sequences.set(symbolId, { lastMatchId, lastPrioritySeq, lastBookSeq });
    for (const r of g.reservations) ws.clientOrderIds.push(r);
    for (const sw of g.switches) ws.switch(sw);
    for (const t of g.triggers) ws.trigger(t);
    for (const e of g.triggerEvents) ws.triggerEvents.push(e);
    for (const [w, f] of g.withdrawals) {
      ws.withdrawIntents.set(w.id, w);
      ws.flows.push(f);
    }
    for (const c of g.withdrawEnds) ws.withdrawStatus(c);
    for (const u of g.flowSteps) ws.flowUpdate(u);
    for (const b of g.balancesAfter) ws.balanceAfter(b as BalanceAfterRow);
    return ws;
  });

describe('the trading journal codec', () => {
  it('decodes every entry to the write set that was encoded', () => {
    fc.assert(
      fc.property(writeSet, (ws) => {
        const back = decodeEntry(encodeEntry(ws));
        expect(back.versions).toEqual(ws.versions);
        // Which rows, not in which order: an order changed, then inserted, in one group is met first as a change.
        expect(back.newOrders).toEqual(ws.newOrders);
        expect(back.changedOrders).toEqual(ws.changedOrders);
        expect(back.trades).toEqual(ws.trades);
        expect(back.transfers).toEqual(ws.transfers);
        expect([...back.balances]).toEqual([...ws.balances]);
        expect([...back.sequences]).toEqual([...ws.sequences]);
        expect(back.clientOrderIds).toEqual(ws.clientOrderIds);
        expect([...back.switches]).toEqual([...ws.switches]);
        expect([...back.triggers]).toEqual([...ws.triggers]);
        expect(back.triggerEvents).toEqual(ws.triggerEvents);
        expect([...back.withdrawIntents]).toEqual([...ws.withdrawIntents]);
        expect(back.flows).toEqual(ws.flows);
        expect([...back.withdrawStatuses]).toEqual([...ws.withdrawStatuses]);
        expect([...back.flowUpdates]).toEqual([...ws.flowUpdates]);
        expect([...back.balancesAfter]).toEqual([...ws.balancesAfter]);
        expect(back.bookLevels).toEqual(ws.bookLevels);
        // Encoding is deterministic: a decoded entry encodes to the same text.
        expect(encodeEntry(back)).toBe(encodeEntry(ws));
      }),
      { numRuns: 300 },
    );
  });

  it('folds consecutive entries into one that touches each row once', () => {
    fc.assert(
      fc.property(fc.array(writeSet, { minLength: 1, maxLength: 4 }), (entries) => {
        const merged = new WriteSet();
        for (const e of entries) merged.absorb(e);
        // Each order's row is its last version across the entries, inserted if any entry inserted it.
        const last = new Map<bigint, OrderVersion>();
        const inserted = new Set<bigint>();
        for (const e of entries) {
          for (const v of e.versions) last.set(v.id, v);
          for (const k of e.newOrders.keys()) inserted.add(k);
        }
        for (const [k, v] of last) expect(inserted.has(k) ? merged.newOrders.get(k) : merged.changedOrders.get(k)).toEqual(v);
        expect(merged.newOrders.size + merged.changedOrders.size).toBe(last.size);
        // Balance deltas add up.
        const sum = (pick: (d: { available: bigint }) => bigint) => (ws: WriteSet) => [...ws.balances.values()].reduce((a, d) => a + pick(d), 0n);
        expect(sum((d) => d.available)(merged)).toBe(entries.reduce((a, e) => a + sum((d) => d.available)(e), 0n));
        // A reservation key appears once.
        const keys = merged.clientOrderIds.map((c) => `${c.accountId}:${c.clientOrderId}`);
        expect(new Set(keys).size).toBe(keys.length);
        // A switch ends in its last state; what a change left as it was keeps the latest value set before it.
        const changes = entries.flatMap((e) => [...e.switches.values()]);
        for (const [key, sw] of merged.switches) {
          const mine = changes.filter((c) => switchKey(c) === key);
          const lastOf = <K extends 'armedAt' | 'lastFiredAtTsNs'>(k: K) => mine.map((c) => c[k]).filter((v) => v !== null).at(-1) ?? null;
          expect(sw).toEqual({ ...mine.at(-1), armedAt: lastOf('armedAt'), lastFiredAtTsNs: lastOf('lastFiredAtTsNs') });
        }
        expect(merged.switches.size).toBe(new Set(changes.map(switchKey)).size);
        // A balance's state after the entries is its last one.
        const after = new Map(entries.flatMap((e) => [...e.balancesAfter]));
        expect(new Map(merged.balancesAfter)).toEqual(after);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the private events of an entry', () => {
  it('number every event of every stream apart, balances last, each balance once as the entry left it', () => {
    fc.assert(
      fc.property(writeSet, fc.bigInt({ min: 1n, max: 1n << 40n }), (ws, seq) => {
        // A fill's order has a version in its entry (entryEvents relies on it).
        for (const t of ws.trades) ws.order({ ...(ws.versions[0] ?? ({ accountPublicId: 'a', symbolId: 1, publicId: 'o' } as OrderVersion)), id: t.orderId });
        const events = entryEvents(seq, ws, String);
        const all = [...events.orders, ...events.fills, ...events.triggers, ...events.balances].map((e) => e.sequence);
        expect(all).toEqual(all.map((_, i) => (seq << EVENT_BITS) + BigInt(i)));
        expect(events.balances.map(({ sequence: _, ...b }) => b)).toEqual([...ws.balancesAfter.values()].map(({ accountId: _, ...b }) => b));
      }),
      { numRuns: 200 },
    );
  });
});

describe('the public events of an entry', () => {
  const level = (symbolId: number, sequence: bigint, side: 'BUY' | 'SELL', price: bigint, qty: bigint): BookLevelRow => ({ symbolId, sequence, side, price, qty });

  it('make a book delta of each change, its levels in the order they changed, bids apart from asks', () => {
    const ws = new WriteSet();
    ws.bookLevels.push(level(1, 7n, 'SELL', 200n, 6n), level(1, 8n, 'SELL', 200n, 0n), level(1, 8n, 'BUY', 199n, 3n), level(1, 8n, 'SELL', 201n, 5n), level(2, 8n, 'BUY', 10n, 1n));
    const { book } = entryMarketEvents(ws, (id) => `S${id}`);
    expect(book).toEqual([
      { symbol: 'S1', sequence: 7n, bids: [], asks: [{ price: 200n, qty: 6n }] },
      { symbol: 'S1', sequence: 8n, bids: [{ price: 199n, qty: 3n }], asks: [{ price: 200n, qty: 0n }, { price: 201n, qty: 5n }] },
      // Another book's change under the same sequence number is its own delta.
      { symbol: 'S2', sequence: 8n, bids: [{ price: 10n, qty: 1n }], asks: [] },
    ]);
  });

  it('make a public trade of each match, from its taker’s side, in the order they matched', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(trade, fc.boolean()), { maxLength: 5 }), (matches) => {
        const ws = new WriteSet();
        for (const [t, makerFirst] of matches) {
          const maker = { ...t, isMaker: true, side: t.side === 'BUY' ? ('SELL' as const) : ('BUY' as const) };
          const taker = { ...t, isMaker: false };
          ws.trades.push(...(makerFirst ? [maker, taker] : [taker, maker]));
        }
        const { trades } = entryMarketEvents(ws, (id) => `S${id}`);
        expect(trades).toEqual(matches.map(([t]) => ({ symbol: `S${t.symbolId}`, matchId: t.matchId, price: t.price, qty: t.qty, takerSide: t.side, executedAt: t.executedAt })));
      }),
      { numRuns: 100 },
    );
  });
});

describe('journal entries written by an earlier version', () => {
  it('without balances after their changes have no balance events, and still project their deltas', () => {
    const ws = new WriteSet();
    ws.balance(1n, 'TRADING', 2, 5n, -5n);
    ws.balanceAfter({ accountId: 1n, accountPublicId: 'a', ledgerAccount: 'TRADING', assetId: 2, available: 7n, held: 0n });
    const wire = JSON.parse(encodeEntry(ws)) as { a?: unknown };
    delete wire.a;
    const back = decodeEntry(JSON.stringify(wire));
    expect([...back.balances.values()]).toEqual([{ accountId: 1n, ledgerAccount: 'TRADING', assetId: 2, available: 5n, held: -5n }]);
    expect(entryEvents(1n, back, String).balances).toEqual([]);
  });

  it('decode orders without the origin columns as placed directly, so the projection can still insert them', () => {
    const ws = new WriteSet();
    const order = { id: 1n, publicId: 'o', accountId: 2n, accountPublicId: 'a', symbolId: 1, clientOrderId: null, side: 'BUY', orderType: 'LIMIT', tif: 'GTC', status: 'NEW', isOpen: true, closeReason: null, price: 1n, origQty: 1n, cumQty: 0n, leavesQty: 1n, inheritedCumQty: 0n, cumNotionalQ9: 0n, inheritedNotionalQ9: 0n, feeAsset: 'QUOTE', postOnly: false, stpMode: 'EXPIRE_MAKER', expireAt: null, expireAtTsNs: null, createdAt: new Date(0), acceptedAtTsNs: 0n, terminalAt: null, lineageId: 'l', generation: 1, replacesOrderId: null, marketClientRefPrice: null, marketMaxSlippageBps: null, marketMaxSlippageTicks: null, submittedMaxQuoteDebit: null, version: 0, heldE18: 0n, prioritySeq: 1n, oco: false, originScope: 'DIRECT', originTriggerId: null, originTriggerType: null, childSeq: 0 } as OrderVersion;
    ws.order(order, true);
    const wire = JSON.parse(encodeEntry(ws)) as { v: unknown[][] };
    // An earlier version wrote each order's columns up to `oco`, then the account's public id, and nothing after.
    wire.v = wire.v.map((row) => row.slice(0, 38));
    expect(wire.v[0]?.[37]).toBe('a');
    const back = decodeEntry(JSON.stringify(wire)).newOrders.get(1n);
    expect(back).toMatchObject({ originScope: 'DIRECT', childSeq: 0, originTriggerId: null });
  });
});
