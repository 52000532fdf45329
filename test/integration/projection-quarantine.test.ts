import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMarkets } from '../../src/services/markets.ts';
import { Journal } from '../../src/services/trading/journal.ts';
import { advanceEngineFence, type EngineFence } from '../../src/services/trading/persist.ts';
import { Projector } from '../../src/services/trading/projector.ts';
import { WriteSet } from '../../src/services/trading/writeSet.ts';
import { testDatabase } from '../helpers/infra.ts';

/**
 * The projector on PostgreSQL (issue 22): one batch of entries, one of which the tables
 * refuse (a CHECK constraint the test adds caps a balance: a check violation, class 23),
 * is bisected down to that entry; it is parked with the later entries of the same balance
 * row, everything else is applied, and a re-apply after the fix (the constraint dropped)
 * applies them in order.
 */
let db: Awaited<ReturnType<typeof testDatabase>>;
let fence: EngineFence;
const accounts: bigint[] = [];
let assetId = 0;

beforeAll(async () => {
  db = await testDatabase();
  const markets = await loadMarkets(db.prisma);
  assetId = (markets.markets[0] as { quote: { unifiedAssetId: number } }).quote.unifiedAssetId;
  for (const name of ['a', 'b', 'c']) accounts.push((await db.prisma.account.create({ data: { publicId: `quarantine-${name}`, kind: 'ROOT' } })).id);
  fence = await advanceEngineFence(db.sql, 'trading');
});
afterAll(() => db.drop());

function credit(account: bigint, amount: bigint): WriteSet {
  const ws = new WriteSet();
  ws.balance(account, 'TRADING', assetId, amount, 0n);
  return ws;
}

const available = async (account: bigint) =>
  BigInt((await db.prisma.balance.findFirst({ where: { accountId: account, ledgerAccount: 'TRADING', assetId } }))?.available.toFixed(0) ?? '0');

describe('projector quarantine on PostgreSQL', () => {
  it('bisects a batch to the entry the tables refuse, parks it with the entries behind it, applies the rest, and re-applies them after the fix', async () => {
    const [a, b, c] = accounts as [bigint, bigint, bigint];
    const journal = new Journal(db.sql, () => fence);
    await journal.open(0n);
    const logger = pino({ level: 'silent' });
    const projector = new Projector(db.sql, journal, { name: 'trading', logger, delayMs: 0, systemAccounts: new Set() });
    await db.sql.query(`ALTER TABLE "Balance" ADD CONSTRAINT quarantine_probe CHECK (available < 1000) NOT VALID`);
    // a, b and c are credited 1 each in turn, except entry 10, which credits a past the cap.
    const owners = [c, a, b];
    for (let i = 1; i <= 30; i++) {
      await journal.append(credit(owners[i % 3] as bigint, i === 10 ? 5000n : 1n), Date.now() + 60_000);
    }
    // Start-up: one catch-up over all 30 entries, as one batch first.
    await projector.catchUp();
    expect(projector.watermark).toBe(30n);
    const parked = projector.parkedEntries;
    expect(parked[0]).toMatchObject({ seq: 10n, sqlState: '23514', behindSeq: null });
    // Entry 10 credits a (10 % 3 = 1): a's later entries, 13, 16, ..., 28, wait behind it.
    expect(parked.slice(1).map((e) => [e.seq, e.behindSeq])).toEqual([13n, 16n, 19n, 22n, 25n, 28n].map((s) => [s, 10n]));
    expect(await available(a)).toBe(3n); // entries 1, 4, 7
    expect(await available(b)).toBe(10n);
    expect(await available(c)).toBe(10n);
    await expect(projector.reached(30n, 100, [a])).rejects.toMatchObject({ code: 'PROJECTION_LAGGING' });
    await expect(projector.reached(30n, 100, [b])).resolves.toBeUndefined();

    // Another process (a restart) finds them parked and serves past them.
    const restarted = new Projector(db.sql, journal, { name: 'trading', logger, delayMs: 0, systemAccounts: new Set() });
    await restarted.catchUp();
    expect(restarted.parkedEntries.map((e) => e.seq)).toEqual(parked.map((e) => e.seq));
    expect(restarted.prunableThrough).toBe(9n);

    expect(await restarted.reapply(13n).catch((e: { code?: string }) => e.code)).toBe('QUARANTINED_ENTRY_BEHIND');
    expect(await restarted.reapply(10n)).toMatchObject({ reapplied: [], failed: { seq: 10n, sqlState: '23514' } });
    await db.sql.query(`ALTER TABLE "Balance" DROP CONSTRAINT quarantine_probe`);
    expect(await restarted.reapply(10n)).toEqual({ reapplied: [10n, 13n, 16n, 19n, 22n, 25n, 28n] });
    expect(restarted.parkedEntries).toEqual([]);
    expect(await available(a)).toBe(5009n);
    expect((await db.prisma.projectionQuarantine.findMany({ where: { status: 'REAPPLIED' } })).length).toBe(7);
    // A repeat applies nothing twice.
    await expect(restarted.reapply(10n)).rejects.toMatchObject({ code: 'QUARANTINED_ENTRY_NOT_FOUND' });
    expect(await available(a)).toBe(5009n);
  });
});
