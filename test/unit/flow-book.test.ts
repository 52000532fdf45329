import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/infra/database.ts';
import { FlowBook, READ_AGAIN, type FlowMove } from '../../src/services/trading/flowJobs.ts';
import { WriteSet, type FlowRow } from '../../src/services/trading/writeSet.ts';

const at = new Date(0);
const deposit = (id: bigint, isOpen = true): FlowRow => ({
  id, publicId: `f${id}`, ownerAccountId: 1n, rootAccountId: 1n, smartAccountAddress: null, flowKind: 'DEPOSIT', flowState: isOpen ? 'SOURCE_CONFIRMING' : 'FAILED', currentStep: 'CONFIRMATIONS',
  currentStepSequence: 2, unifiedAssetId: 4, zippedAssetId: 102, amountE18: 10n, serviceChainId: 1, sourceDomain: 'EXTERNAL_CHAIN', destinationDomain: 'FUNDING', sourceAddress: null,
  destinationAddress: '0xa', latestLifecycleSource: 'INDEXER', lifecycleReason: null, isOpen, isTerminal: !isOpen, startedAt: at, updatedAt: at, lastActivityAt: at, terminalAt: null,
  estimatedCompletionAt: null, currentProgress: '{}', progressTimeline: '[]', requestFee: null, sourceTxHash: `0x${id}`, txOccurrenceIndex: '0', latestTxRef: `0x${id}`, depositAddressId: 1n, version: 1n,
});
const step = (id: bigint, from: bigint, flowState: FlowRow['flowState'], isOpen = true): FlowMove => ({
  from,
  next: { id, flowState, currentStep: 'CONFIRMATIONS', currentStepSequence: 2, lifecycleReason: null, isOpen, isTerminal: !isOpen, updatedAt: at, lastActivityAt: at, terminalAt: null, estimatedCompletionAt: null, currentProgress: '{}', progressTimeline: '[]', requestFee: null, latestLifecycleSource: 'INDEXER', latestTxRef: null, sourceTxHash: null, txOccurrenceIndex: null },
});
const key = (id: bigint) => ({ serviceChainId: 1, sourceTxHash: `0x${id}`, txOccurrenceIndex: '0' });

describe('the engine flow book (one writer, compare and set)', () => {
  it('applies one of two steps computed from the same version, and the winner moves the version on', () => {
    const book = new FlowBook(undefined as unknown as Db);
    book.insert(new WriteSet(), deposit(7n));
    const ws = new WriteSet();
    // A credit and a drop both read version 1: the first wins, the second finds version 2.
    expect(book.move(ws, step(7n, 1n, 'COMPLETED', false))).toBe(true);
    expect(book.move(ws, step(7n, 1n, 'DROPPED', false))).toBe(false);
    expect([...ws.flowUpdates.values()].map((u) => [u.flowState, u.version])).toEqual([['COMPLETED', 2n]]);
    // Ended, it takes no step at all.
    expect(book.move(ws, step(7n, 2n, 'DROPPED', false))).toBe(false);
  });

  it('finds a deposit reported again while open, and asks for a new read when one ended during the read', () => {
    const book = new FlowBook(undefined as unknown as Db);
    const prepared = { stored: undefined, closes: 0, flowId: 9n };
    book.insert(new WriteSet(), deposit(8n));
    expect(book.knownDeposit(key(8n), prepared)).toBe('f8');
    expect(book.knownDeposit(key(9n), prepared)).toBeUndefined();
    book.move(new WriteSet(), step(8n, 1n, 'COMPLETED', false));
    // Gone from memory; a read taken before it ended may predate its row.
    expect(book.knownDeposit(key(8n), prepared)).toBe(READ_AGAIN);
    expect(book.knownDeposit(key(8n), { ...prepared, closes: 1, stored: 'f8' })).toBe('f8');
  });

  it('folds a step into the row its own write set inserts, so the projection touches the row once', () => {
    const book = new FlowBook(undefined as unknown as Db);
    const ws = new WriteSet();
    book.insert(ws, deposit(5n));
    expect(book.move(ws, step(5n, 1n, 'DROPPED', false))).toBe(true);
    expect([ws.flows.map((f) => [f.flowState, f.version]), ws.flowUpdates.size]).toEqual([[['DROPPED', 2n]], 0]);
  });
});
