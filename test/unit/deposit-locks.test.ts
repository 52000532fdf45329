import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import type { Db } from '../../src/infra/database.ts';
import type { SqlQueryable } from '../../src/infra/migrations.ts';
import { BalanceBook, type BalanceRef } from '../../src/services/trading/balances.ts';
import { DepositLocks } from '../../src/services/trading/depositLocks.ts';
import { WriteSet } from '../../src/services/trading/writeSet.ts';

const BLOCK_MS = 100;
// Ethereum: credited at 12 confirmations, final at 64.
const ETH_LOCK_MS = 52 * BLOCK_MS;
const noSql = {} as SqlQueryable;
const emptyDb = { balance: { findMany: async () => [] }, account: { findMany: async () => [] } } as unknown as Db;
const funding: BalanceRef = { accountId: 7n, ledgerAccount: 'FUNDING', assetId: 4 };
const trading: BalanceRef = { ...funding, ledgerAccount: 'TRADING' };

const codeOf = (f: () => void) => {
  try {
    f();
    return undefined;
  } catch (err) {
    return (err as ApiError).code;
  }
};

describe('deposit locks', () => {
  it('hold from the credit until the chain is final, once per flow, and none on a network without a gap', () => {
    const locks = new DepositLocks(noSql, BLOCK_MS);
    locks.add(7n, 4, 100n, 1, 1n, 1_000);
    locks.add(7n, 4, 100n, 1, 1n, 1_000);
    locks.add(7n, 4, 50n, 1, 2n, 2_000);
    // Solana is final at its deposit count: nothing to lock.
    locks.add(7n, 4, 999n, 501, 3n, 2_000);
    expect(locks.locked(7n, 4, 1_000 + ETH_LOCK_MS - 1)).toEqual({ amount: 150n, untilMs: 2_000 + ETH_LOCK_MS });
    expect(locks.locked(7n, 4, 1_000 + ETH_LOCK_MS)).toEqual({ amount: 50n, untilMs: 2_000 + ETH_LOCK_MS });
    expect(locks.locked(7n, 4, 2_000 + ETH_LOCK_MS)).toEqual({ amount: 0n, untilMs: 0 });
    expect(locks.has(7n, 4)).toBe(false);
    expect(locks.locked(8n, 4, 0)).toEqual({ amount: 0n, untilMs: 0 });
  });

  it('keep the locked amount on the account across its two ledgers, whatever way out', async () => {
    const locks = new DepositLocks(noSql, BLOCK_MS);
    const book = new BalanceBook(emptyDb, locks);
    const ws = new WriteSet();
    const custody: BalanceRef = { accountId: 1n, ledgerAccount: 'FUNDING', assetId: 4 };
    const other: BalanceRef = { accountId: 8n, ledgerAccount: 'FUNDING', assetId: 4 };
    await book.load([funding, trading, custody, other]);
    book.post(ws, { id: 1n, code: 'DEPOSIT', timestampUs: 0n }, [{ ref: custody, amount: 130n }], [{ ref: funding, amount: 100n }, { ref: trading, amount: 30n }]);
    locks.add(7n, 4, 100n, 1, 1n, 0);
    // 30 of the 130 is final: either ledger may spend it, neither more.
    expect(book.spendable(funding, 1)).toBe(30n);
    expect(book.spendable(trading, 1)).toBe(30n);
    expect(codeOf(() => book.requireUnlocked(trading, 30n, 1, 'amount'))).toBeUndefined();
    expect(codeOf(() => book.requireUnlocked(trading, 31n, 1, 'amount'))).toBeUndefined(); // a plain shortfall is the caller's
    expect(codeOf(() => book.requireUnlocked(funding, 31n, 1, 'amount'))).toBe('DEPOSIT_NOT_FINAL');
    // Between its own ledgers nothing leaves; to another account only the final part.
    expect(codeOf(() => book.requireUnlockedTransfer([{ ref: funding, amount: 100n }], [{ ref: trading, amount: 100n }], 1, 'amount'))).toBeUndefined();
    expect(codeOf(() => book.requireUnlockedTransfer([{ ref: funding, amount: 30n }], [{ ref: other, amount: 30n }], 1, 'amount'))).toBeUndefined();
    expect(codeOf(() => book.requireUnlockedTransfer([{ ref: funding, amount: 31n }], [{ ref: other, amount: 31n }], 1, 'amount'))).toBe('DEPOSIT_NOT_FINAL');
    // A settlement from held takes nothing more off the account's available.
    expect(codeOf(() => book.requireUnlockedTransfer([{ ref: funding, amount: 100n, debitFrom: 'held' }], [{ ref: other, amount: 100n }], 1, 'amount'))).toBeUndefined();
    // At finality all of it may go.
    expect(codeOf(() => book.requireUnlockedTransfer([{ ref: funding, amount: 100n }], [{ ref: other, amount: 100n }], ETH_LOCK_MS, 'amount'))).toBeUndefined();
  });
});
