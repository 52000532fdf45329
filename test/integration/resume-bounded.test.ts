import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionCaller } from '../../src/auth/caller.ts';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { RESUME_PAGE_ENTRIES } from '../../src/services/trading/engine.ts';
import { decodeEntry, Journal } from '../../src/services/trading/journal.ts';
import { entryEvents } from '../../src/services/trading/streams.ts';
import { startTestApp, uniqueName, type RunningApp } from '../helpers/infra.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * A resume (`after`) reads only the caller's journal entries, a page at a time, and stops
 * when the subscriber leaves (src/services/trading/streams.ts, Journal.readOf).
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

type Stream = 'orders' | 'fills' | 'triggers' | 'balances';

async function newTrader(): Promise<SessionCaller> {
  const s = server.app.services;
  const publicId = uniqueName('r');
  const row = await server.database.prisma.account.create({ data: { publicId, kind: 'ROOT' } });
  for (const pool of ['TRADING_PLACE', 'TRADING_CANCEL'] as const) {
    await s.operator.putRateLimitOverride({ pool, accountId: publicId, quotaWeight: 100000n, periodMs: 1000n, burstWeight: 100000n });
  }
  await s.ledger.operatorCredit({ accountId: publicId, asset: 'SOL', amount: '100000', ledgerAccount: 'TRADING' });
  await s.ledger.operatorCredit({ accountId: publicId, asset: 'USDC', amount: '10000000', ledgerAccount: 'TRADING' });
  return { kind: 'session', rootAccountId: row.id, rootPublicId: publicId, sessionId: 0n };
}

/** The old resume: every kept entry read and decoded, the account's events picked out. */
async function fullScan(stream: Stream, accountPublicId: string, after: bigint): Promise<string[]> {
  const rows = await server.database.sql.query<{ seq: string; payload: string }>(`SELECT seq::text AS seq, payload FROM "TradingJournal" ORDER BY "TradingJournal".seq`);
  const out: string[] = [];
  for (const r of rows) {
    for (const e of entryEvents(BigInt(r.seq), decodeEntry(r.payload), String)[stream]) {
      if (e.accountPublicId === accountPublicId && e.sequence > after) out.push(e.sequence.toString());
    }
  }
  return out;
}

async function take(it: AsyncIterator<{ sequence: bigint }>, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value.sequence.toString());
  }
  return out;
}

const place = (who: SessionCaller, side: 'BUY' | 'SELL', price: number, qty = '0.1') =>
  server.app.services.orders.createOrder(who, { order: { symbol: 'SOL-USDC', side, baseQty: qty, limitGtc: { price: String(price) } } });

describe('bounded resume', () => {
  it('replays exactly the events the full scan of the journal finds, for any account and any after', async () => {
    const orders = server.app.services.orders;
    const traders = [await newTrader(), await newTrader(), await newTrader()];
    const idle = await newTrader();
    // Resting orders, crossing ones (fills for both sides), cancels: entries shared by accounts.
    for (let i = 0; i < 30; i++) {
      const a = traders[i % 3] as SessionCaller;
      const b = traders[(i + 1) % 3] as SessionCaller;
      const rest = await place(a, 'SELL', 100 + (i % 4));
      if (i % 3 === 0) await orders.cancelOrder(a, { orderId: rest.orderId });
      else await place(b, 'BUY', 103, '0.05');
    }
    await orders.engine.flushed();

    await fc.assert(
      fc.asyncProperty(fc.nat(3), fc.constantFrom<Stream>('orders', 'fills', 'balances'), fc.nat(), async (who, stream, pick) => {
        const caller = (who === 3 ? idle : traders[who]) as SessionCaller;
        const all = await fullScan(stream, caller.rootPublicId, 0n);
        const after = pick % 4 === 0 || all.length === 0 ? 0n : BigInt(all[pick % all.length] as string);
        const expected = await fullScan(stream, caller.rootPublicId, after);
        const sub = (await orders.subscribe(caller, stream, undefined, after)) as AsyncIterableIterator<{ sequence: bigint }>;
        try {
          expect(await take(sub, expected.length)).toEqual(expected);
          if (stream === 'orders') {
            // Nothing more was replayed: the next event is the one made now.
            const made = await place(caller, 'SELL', 1000);
            expect(await take(sub, 1)).toEqual(await fullScan(stream, caller.rootPublicId, BigInt(expected.at(-1) ?? after)));
            await orders.cancelOrder(caller, { orderId: made.orderId });
          }
        } finally {
          await sub.return?.();
        }
      }),
      { numRuns: 16, seed: 20261127 },
    );
  }, 120_000);

  it('reads a page at a time while the subscriber takes events, and no further page once it leaves', async () => {
    const orders = server.app.services.orders;
    const busy = await newTrader();
    // More entries of the account than three pages hold.
    for (let i = 0; i < 3 * RESUME_PAGE_ENTRIES + 20; i++) await place(busy, 'SELL', 2000 + i);
    await orders.engine.flushed();
    const readOf = vi.spyOn(Journal.prototype, 'readOf');
    const pagesRead = () => readOf.mock.calls.filter((c) => c[0] === busy.rootPublicId).length;

    const reader = (await orders.subscribe(busy, 'orders', undefined, 0n)) as AsyncIterableIterator<{ sequence: bigint }>;
    expect(await take(reader, 3 * RESUME_PAGE_ENTRIES + 20)).toEqual(await fullScan('orders', busy.rootPublicId, 0n));
    await reader.return?.();
    expect(pagesRead()).toBe(4);

    readOf.mockClear();
    const leaver = (await orders.subscribe(busy, 'orders', undefined, 0n)) as AsyncIterableIterator<{ sequence: bigint }>;
    await take(leaver, 1);
    await leaver.return?.();
    // Given time to read every page, the replay still read only the first.
    await pollUntil(() => pagesRead() > 1, 500);
    expect(pagesRead()).toBe(1);
  }, 60_000);

  it('a resume from before what the journal keeps is refused with STREAM_RESUME_TOO_OLD; one within it is not', async () => {
    const orders = server.app.services.orders;
    const caller = await newTrader();
    await place(caller, 'SELL', 3000);
    await place(caller, 'SELL', 3001);
    await orders.engine.flushed();
    await orders.engine.readable();
    const events = await fullScan('orders', caller.rootPublicId, 0n);
    const [ends] = await server.database.sql.query<{ first: string; last: string }>(`SELECT min(seq)::text AS first, max(seq)::text AS last FROM "TradingJournal"`);
    const first = (ends as { first: string }).first;
    const lastSeq = BigInt((ends as { last: string }).last);
    // Retention drops the oldest entry; a resume needing it is refused.
    await server.database.sql.query(`DELETE FROM "TradingJournal" WHERE seq = $1::bigint`, [first]);
    const refused = await orders.subscribe(caller, 'orders', undefined, 0n).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(400);
    expect((refused as ApiError).code).toBe('STREAM_RESUME_TOO_OLD');
    // The balance stream resumes from the same journal, with the same bound.
    await expect(orders.subscribe(caller, 'balances', undefined, 0n)).rejects.toMatchObject({ status: 400, code: 'STREAM_RESUME_TOO_OLD' });

    // Retention removed every entry: only a resume from the very end is complete.
    await server.database.sql.query(`DELETE FROM "TradingJournal" WHERE seq <= $1::bigint`, [lastSeq.toString()]);
    await expect(orders.subscribe(caller, 'orders', undefined, BigInt(events.at(-2) as string))).rejects.toMatchObject({ status: 400 });
    const atEnd = (await orders.subscribe(caller, 'orders', undefined, lastSeq << 20n)) as AsyncIterableIterator<unknown>;
    await atEnd.return?.();
  });
});
