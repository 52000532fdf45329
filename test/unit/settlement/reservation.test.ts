import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderBook, type MatchEvent } from '../../../src/domain/matching/index.ts';
import { toE18 } from '../../../src/domain/money.ts';
import { buyReservation, reReservation, reservationFor, settleFill, type FeeAsset, type FillParty, type SettlementMarket } from '../../../src/domain/settlement/index.ts';
import { FEE_ACCOUNT, coveredSchedule, feeAsset, marketArb, price, tier } from './arbitraries.ts';

const BUYER = 7n;
const SELLER = 8n;

/** The buyer's debits from held in one fill. */
function heldDebits(s: ReturnType<typeof settleFill>, accountId: bigint): bigint {
  return s.debits.filter((d) => d.accountId === accountId && d.debitFrom === 'held').reduce((a, d) => a + d.amount, 0n);
}

/** A fill of a BUY resting at `limit` happens at its limit; as taker, at a maker's price at or below it. */
const fillStep = fc.record({ qty: fc.bigInt({ min: 1n, max: 10n ** 9n }), asMaker: fc.boolean(), discount: fc.bigInt({ min: 0n, max: 10n ** 15n }), sellerTier: tier });

function fillBuy(market: SettlementMarket, buyer: FillParty, limit: bigint, step: { qty: bigint; asMaker: boolean; discount: bigint; sellerTier: number }) {
  const p = step.asMaker ? limit : limit - (step.discount % limit);
  const seller: FillParty = { accountId: SELLER, feeAsset: 'QUOTE', vipTier: step.sellerTier, cumNotionalQ9: 0n };
  return settleFill({ market, feeAccountId: FEE_ACCOUNT, price: p, qty: step.qty, takerSide: step.asMaker ? 'SELL' : 'BUY', maker: step.asMaker ? buyer : seller, taker: step.asMaker ? seller : buyer });
}

describe('reservations cover what fills debit', () => {
  it("a BUY's debits from held over any partial fills at or below its limit never exceed its reservation", () => {
    fc.assert(
      fc.property(marketArb(coveredSchedule), price, feeAsset, tier, fc.array(fillStep, { minLength: 1, maxLength: 30 }), fc.bigInt({ min: 0n, max: 10n ** 9n }), (market, limit, asset, buyerTier, steps, unfilled) => {
        const qty = steps.reduce((a, s) => a + s.qty, 0n) + unfilled;
        const hold = buyReservation(market, limit, qty, asset);
        const buyer: FillParty = { accountId: BUYER, feeAsset: asset, vipTier: buyerTier, cumNotionalQ9: 0n };
        let debited = 0n;
        for (const step of steps) {
          const s = fillBuy(market, buyer, limit, step);
          debited += heldDebits(s, BUYER);
          buyer.cumNotionalQ9 += s.notionalQ9;
          expect(debited <= hold).toBe(true);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('a BUY modified between fills (new price, new quantity) never holds less than its next fills debit', () => {
    const command = fc.oneof(fc.record({ k: fc.constant('fill' as const), step: fillStep }), fc.record({ k: fc.constant('modify' as const), price, leaves: fc.bigInt({ min: 1n, max: 10n ** 10n }) }));
    fc.assert(
      fc.property(marketArb(coveredSchedule), price, fc.bigInt({ min: 1n, max: 10n ** 10n }), feeAsset, tier, fc.array(command, { maxLength: 30 }), (market, firstPrice, firstQty, asset, buyerTier, commands) => {
        const buyer: FillParty = { accountId: BUYER, feeAsset: asset, vipTier: buyerTier, cumNotionalQ9: 0n };
        let limit = firstPrice;
        let leaves = firstQty;
        let held = reservationFor(market, { side: 'BUY', qty: leaves, limit, feeAsset: asset }).hold;
        for (const c of commands) {
          if (c.k === 'modify') {
            const { required, delta } = reReservation(market, { side: 'BUY', price: c.price, leaves: c.leaves, feeAsset: asset, heldE18: held });
            expect(held + delta).toBe(required);
            [held, limit, leaves] = [required, c.price, c.leaves];
            continue;
          }
          if (leaves === 0n) continue;
          const step = { ...c.step, qty: c.step.qty > leaves ? leaves : c.step.qty };
          const s = fillBuy(market, buyer, limit, step);
          expect(heldDebits(s, BUYER)).toBe((step.asMaker ? s.maker : s.taker).heldDecrease);
          held -= heldDebits(s, BUYER);
          leaves -= step.qty;
          buyer.cumNotionalQ9 += s.notionalQ9;
          expect(held >= 0n).toBe(true);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('a SELL holds exactly the base its fills debit', () => {
    fc.assert(
      fc.property(marketArb(coveredSchedule), fc.array(fc.record({ qty: fc.bigInt({ min: 1n, max: 10n ** 9n }), p: price }), { minLength: 1, maxLength: 20 }), feeAsset, (market, fills, buyerAsset) => {
        const total = fills.reduce((a, f) => a + f.qty, 0n);
        const r = reservationFor(market, { side: 'SELL', qty: total, limit: 1n, feeAsset: 'QUOTE' });
        expect(r).toEqual({ asset: 'BASE', hold: toE18(total, market.baseQuantityScale) });
        const seller: FillParty = { accountId: SELLER, feeAsset: 'QUOTE', vipTier: 0, cumNotionalQ9: 0n };
        const buyer: FillParty = { accountId: BUYER, feeAsset: buyerAsset, vipTier: 0, cumNotionalQ9: 0n };
        const debited = fills.reduce((a, f) => a + heldDebits(settleFill({ market, feeAccountId: FEE_ACCOUNT, price: f.p, qty: f.qty, takerSide: 'SELL', maker: buyer, taker: seller }), SELLER), 0n);
        expect(debited).toBe(r.hold);
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * A BUY bounded by maxQuoteDebit, through the real matching engine: its cap stops the fills,
 * and what they debit (quote and quote fees) is checked against maxQuoteDebit itself.
 */
function spendWithCap(market: SettlementMarket, asks: { price: bigint; qty: bigint; tier: number }[], maxQuoteDebit: bigint, buyer: FillParty): { spent: bigint; hold: bigint; cap: bigint } {
  const { hold, cap } = reservationFor(market, { side: 'BUY', qty: 1n, limit: 1n, feeAsset: buyer.feeAsset, maxQuoteDebit }) as { hold: bigint; cap: bigint };
  const book = new OrderBook({ tickSize: 1n, baseScale: market.baseQuantityScale, quoteScale: market.quoteQuantityScale });
  const sellers = new Map<bigint, FillParty>();
  asks.forEach((a, i) => {
    const id = BigInt(100 + i);
    sellers.set(id, { accountId: 1_000n + BigInt(i), feeAsset: 'QUOTE', vipTier: a.tier, cumNotionalQ9: 0n });
    book.place({ orderId: id, accountId: 1_000n + BigInt(i), side: 'SELL', type: 'LIMIT', tif: 'GTC', price: a.price, qty: a.qty }, 0n);
  });
  if (cap <= 0n) return { spent: 0n, hold, cap };
  const events: MatchEvent[] = book.place({ orderId: 1n, accountId: BUYER, side: 'BUY', type: 'MARKET', tif: 'IOC', qty: 10n ** 15n, maxQuoteNotional: cap }, 0n);
  expect(events.some((e) => e.type === 'rejected')).toBe(false);
  let spent = 0n;
  for (const e of events) {
    if (e.type !== 'trade') continue;
    const s = settleFill({ market, feeAccountId: FEE_ACCOUNT, price: e.price, qty: e.qty, takerSide: 'BUY', maker: sellers.get(e.makerOrderId as bigint) as FillParty, taker: buyer });
    spent += heldDebits(s, BUYER);
    buyer.cumNotionalQ9 += s.notionalQ9;
  }
  return { spent, hold, cap };
}

const asks = fc.array(fc.record({ price: fc.bigInt({ min: 1n, max: 10n ** 12n }), qty: fc.bigInt({ min: 1n, max: 10n ** 9n }), tier }), { minLength: 1, maxLength: 12 });

describe('a BUY bounded by maxQuoteDebit', () => {
  /*
   * Up to a quote scale of 12 every E18 quote amount is a multiple of 10^6, so per-fill fees
   * never round and the cap leaves exactly the fee's room. Above it each fill's fee may round
   * up by one E18 unit that the cap does not leave room for, and this does not hold: quote
   * scale 18, taker 1 ppm, maxQuoteDebit 1000 gives cap 999, and fills of 500 and 499 spend
   * 1001 (docs/settlement.md). Every configured market has quote scale 6.
   */
  it('never spends more than maxQuoteDebit, fees included, on markets with a quote scale of 12 or less', () => {
    fc.assert(
      fc.property(marketArb(coveredSchedule, fc.integer({ min: 0, max: 12 })), asks, fc.bigInt({ min: 1n, max: 10n ** 15n }), feeAsset, tier, (market, book, mqd, asset, buyerTier) => {
        const { spent, hold } = spendWithCap(market, book, mqd, { accountId: BUYER, feeAsset: asset, vipTier: buyerTier, cumNotionalQ9: 0n });
        expect(hold).toBe(toE18(mqd, market.quoteQuantityScale));
        expect(spent <= hold).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});
