import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionCaller } from '../../src/auth/caller.ts';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { startTestApp, uniqueName, type RunningApp } from '../helpers/infra.ts';
import { ledgerViolations, SOUND_LEDGER } from '../helpers/trading.ts';

/**
 * Random command streams through the real order service (engine, sequencer, ledger,
 * PostgreSQL), then the invariants that must hold whatever happened.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

async function newTrader(): Promise<SessionCaller> {
  const s = server.app.services;
  const publicId = uniqueName('p');
  const row = await server.database.prisma.account.create({ data: { publicId, kind: 'ROOT', vipTier: Math.floor(Math.random() * 11) } });
  for (const pool of ['TRADING_PLACE', 'TRADING_CANCEL'] as const) {
    await s.operator.putRateLimitOverride({ pool, accountId: publicId, quotaWeight: 100000n, periodMs: 1000n, burstWeight: 100000n });
  }
  await s.ledger.operatorCredit({ accountId: publicId, asset: 'SOL', amount: '1000', ledgerAccount: 'TRADING' });
  await s.ledger.operatorCredit({ accountId: publicId, asset: 'USDC', amount: '100000', ledgerAccount: 'TRADING' });
  return { kind: 'session', rootAccountId: row.id, rootPublicId: publicId, sessionId: 0n };
}

const command = fc.oneof(
  fc.record({
    k: fc.constant('place' as const),
    who: fc.nat(2),
    side: fc.constantFrom('BUY' as const, 'SELL' as const),
    price: fc.integer({ min: 95, max: 105 }),
    qty: fc.integer({ min: 1, max: 40 }),
    kind: fc.constantFrom('gtc', 'ioc', 'market', 'postOnly'),
    stp: fc.constantFrom('EXPIRE_MAKER' as const, 'EXPIRE_TAKER' as const, 'EXPIRE_BOTH' as const, 'DECREMENT' as const),
    feeAsset: fc.constantFrom('QUOTE' as const, 'BASE' as const),
  }),
  fc.record({ k: fc.constant('cancel' as const), who: fc.nat(2), pick: fc.nat() }),
  fc.record({ k: fc.constant('modify' as const), who: fc.nat(2), pick: fc.nat(), qty: fc.integer({ min: 1, max: 60 }), price: fc.option(fc.integer({ min: 95, max: 105 })) }),
  fc.record({ k: fc.constant('replace' as const), who: fc.nat(2), pick: fc.nat(), qty: fc.integer({ min: 1, max: 60 }), price: fc.integer({ min: 95, max: 105 }), postOnly: fc.boolean() }),
);

async function invariants() {
  const q = <T>(sql: string) => server.database.sql.query<T>(sql);
  expect(await ledgerViolations(q)).toEqual(SOUND_LEDGER);
  // Quantity: an open order works exactly what it was given less what it filled; only
  // DECREMENT self-trade prevention (an account's taker in that mode meeting its own
  // maker) removes quantity without a fill, so such accounts' orders may work less.
  // Terminal orders rest nothing.
  expect(
    await q(`SELECT o.id FROM "Order" o WHERE
      (o."isOpen" AND o."cumQty" + o."leavesQty" <> o."origQty" - o."inheritedCumQty"
        AND NOT EXISTS (SELECT 1 FROM "Order" d WHERE d."accountId" = o."accountId" AND d."stpMode" = 'DECREMENT'))
      OR o."inheritedCumQty" + o."cumQty" + o."leavesQty" > o."origQty"
      OR (NOT o."isOpen" AND o."leavesQty" <> 0)`),
  ).toEqual([]);
  // What the open orders work is what the book holds, level by level.
  const rows = await q<{ side: string; price: string; qty: string }>(
    `SELECT side, price::text, sum("leavesQty")::text AS qty FROM "Order" WHERE "isOpen" AND "symbolId" = (SELECT "symbolId" FROM "Market" WHERE symbol = 'SOL-USDC') GROUP BY side, price`,
  );
  const depth = server.app.services.orders.getOrderBook('SOL-USDC', 500).depth;
  const levels = [...depth.bids.map((l) => [`BUY@${l.price}`, l.qty] as const), ...depth.asks.map((l) => [`SELL@${l.price}`, l.qty] as const)];
  expect(new Map(rows.map((r) => [`${r.side}@${r.price}`, BigInt(r.qty)]))).toEqual(new Map(levels));
  expect(await q(`SELECT o.id FROM "Order" o LEFT JOIN "Trade" t ON t."orderId" = o.id GROUP BY o.id HAVING o."cumQty" <> COALESCE(sum(t.qty), 0)`)).toEqual([]);
  // No self-trades, and the book is never crossed.
  expect(await q(`SELECT t."matchId" FROM "Trade" t GROUP BY t."symbolId", t."matchId" HAVING count(DISTINCT t."accountId") < 2`)).toEqual([]);
  expectUncrossed();
}

function expectUncrossed() {
  const book = server.app.services.orders.getOrderBook('SOL-USDC', 1).depth;
  if (book.bids[0] && book.asks[0]) expect(book.bids[0].price < book.asks[0].price).toBe(true);
}

describe('trading invariants under random command streams', () => {
  it('conserves balances and quantities, never self-trades, never crosses the book', async () => {
    const orders = server.app.services.orders;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 10, maxLength: 40 }), async (commands) => {
        const traders = [await newTrader(), await newTrader(), await newTrader()];
        const mine: string[][] = [[], [], []];
        for (const c of commands) {
          const who = traders[c.who] as SessionCaller;
          try {
            if (c.k === 'place') {
              const price = String(c.price);
              const variant =
                c.kind === 'gtc' ? { limitGtc: { price } }
                : c.kind === 'postOnly' ? { limitGtc: { price, postOnly: true } }
                : c.kind === 'ioc' ? { limitIoc: { price } }
                : { marketIoc: { clientRefPrice: '100', maxSlippageTicks: 5000 } };
              const r = await orders.createOrder(who, {
                order: { symbol: 'SOL-USDC', side: c.side, baseQty: String(c.qty / 10), selfTradePreventionMode: c.stp, ...(c.side === 'BUY' ? { feeAsset: c.feeAsset } : {}), ...variant },
              });
              mine[c.who]?.push(r.orderId);
            } else if (c.k === 'cancel') {
              const list = mine[c.who] as string[];
              if (list.length > 0) await orders.cancelOrder(who, { orderId: list[c.pick % list.length] as string });
            } else if (c.k === 'replace') {
              const list = mine[c.who] as string[];
              const target = list[c.pick % Math.max(1, list.length)];
              const old = target && (await server.database.prisma.order.findUnique({ where: { publicId: target }, select: { side: true } }));
              if (old) {
                const r = await orders.replaceOrder(who, {
                  orderId: target,
                  order: { symbol: 'SOL-USDC', side: old.side, baseQty: String(c.qty / 10), limitGtc: { price: String(c.price), postOnly: c.postOnly } },
                });
                list.push(r.orderId);
              }
            } else {
              const list = mine[c.who] as string[];
              if (list.length > 0) {
                await orders.modifyOrder(who, { orderId: list[c.pick % list.length] as string, newQty: String(c.qty / 10), ...(c.price !== null ? { newPrice: String(c.price) } : {}) });
              }
            }
          } catch (err) {
            // Refusals (not found, insufficient balance, ...) are expected; anything else is a bug.
            if (!(err instanceof ApiError) || err.status >= 500) throw err;
          }
          expectUncrossed();
        }
        await orders.engine.flushed();
        await invariants();
      }),
      { numRuns: 12, seed: 20261122 },
    );
  }, 120_000);
});
