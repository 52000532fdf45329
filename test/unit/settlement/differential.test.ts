import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteNotional } from '../../../src/domain/matching/notional.ts';
import { feeOf, toE18 } from '../../../src/domain/money.ts';
import { reReservation, reservationFor, settleFill, type FillParty, type SettlementMarket } from '../../../src/domain/settlement/index.ts';
import { FEE_ACCOUNT, anySchedule, feeAsset, marketArb, party, price, qty } from './arbitraries.ts';

/*
 * The arithmetic of src/services/trading/orders.ts at c6a3c78, copied as it was (balance
 * refs and the write set stubbed out), so the domain module is held to the same amounts,
 * the same rounding and the same leg order, which fixes each leg's balance-after.
 */
const FEE_SLACK_E18 = 1_000_000n;
type Market = SettlementMarket;
type Order = FillParty & { id: bigint; heldE18: bigint };
type Ref = { accountId: bigint; ledgerAccount: 'TRADING'; assetId: number };
const tradingRef = (accountId: bigint, assetId: number): Ref => ({ accountId, ledgerAccount: 'TRADING', assetId });

function reference(tiers: Map<bigint, number>) {
  function buyReservation(market: Market, price: bigint, qty: bigint, feeAsset: 'QUOTE' | 'BASE'): bigint {
    const notionalE18 = toE18(quoteNotional(price, qty, market.notional), market.quoteQuantityScale);
    return notionalE18 + (feeAsset === 'QUOTE' ? feeOf(notionalE18, maxFeePpm(market)).fee + FEE_SLACK_E18 : 0n);
  }
  function maxFeePpm(market: Market): number {
    return Math.max(feePpm(market, false), feePpm(market, true), 0);
  }
  function feePpm(market: Market, isMaker: boolean, accountId?: bigint): number {
    const tier = accountId === undefined ? 0 : (tiers.get(accountId) ?? 0);
    return (isMaker ? market.makerFeePpm : market.takerFeePpm)[tier] as number;
  }
  function reservationFor(market: Market, v: { maxQuoteDebit?: bigint; price: bigint; feeAsset: 'QUOTE' | 'BASE' }, order: { side: 'BUY' | 'SELL' }, working: bigint, protection?: bigint) {
    const isBuy = order.side === 'BUY';
    if (isBuy && v.maxQuoteDebit !== undefined) {
      return { hold: toE18(v.maxQuoteDebit, market.quoteQuantityScale), cap: (v.maxQuoteDebit * 1_000_000n - 1n) / BigInt(1_000_000 + maxFeePpm(market)) };
    }
    const limit = protection ?? v.price;
    return { hold: isBuy ? buyReservation(market, limit, working, v.feeAsset) : toE18(working, market.baseQuantityScale), cap: undefined };
  }
  function modifyRequired(market: Market, live: { side: 'BUY' | 'SELL'; feeAsset: 'QUOTE' | 'BASE' }, price: bigint, leaves: bigint) {
    const isBuy = live.side === 'BUY';
    return isBuy ? buyReservation(market, price, leaves, live.feeAsset) : toE18(leaves, market.baseQuantityScale);
  }
  function settle(market: Market, fees: bigint, t: { price: bigint; qty: bigint; takerSide: 'BUY' | 'SELL' }, maker: Order, taker: Order) {
    const buyer = t.takerSide === 'BUY' ? taker : maker;
    const seller = t.takerSide === 'BUY' ? maker : taker;
    const exact = t.price * t.qty;
    const before = quoteNotional(1n, buyer.cumNotionalQ9, market.notional);
    const after = quoteNotional(1n, buyer.cumNotionalQ9 + exact, market.notional);
    const quoteE18 = toE18(after - before, market.quoteQuantityScale);
    const baseE18 = toE18(t.qty, market.baseQuantityScale);
    const quote = market.quote.unifiedAssetId;
    const base = market.base.unifiedAssetId;

    const debits = [
      { ref: tradingRef(buyer.accountId, quote), amount: quoteE18, debitFrom: 'held' as const, code: 'TRADE' as const },
      { ref: tradingRef(seller.accountId, base), amount: baseE18, debitFrom: 'held' as const, code: 'TRADE' as const },
    ];
    const credits = [
      { ref: tradingRef(seller.accountId, quote), amount: quoteE18, code: 'TRADE' as const },
      { ref: tradingRef(buyer.accountId, base), amount: baseE18, code: 'TRADE' as const },
    ];
    const feeRows = new Map<bigint, { fee: bigint; rebate: boolean; asset: 'QUOTE' | 'BASE' }>();
    for (const o of [buyer, seller]) {
      const isMaker = o === maker;
      const asset = o.feeAsset;
      const gross = asset === 'BASE' ? baseE18 : quoteE18;
      const { fee, rebate } = feeOf(gross, feePpm(market, isMaker, o.accountId));
      feeRows.set(o.id, { fee, rebate, asset });
      if (fee === 0n) continue;
      const assetId = asset === 'BASE' ? base : quote;
      if (rebate) {
        debits.push({ ref: tradingRef(fees, assetId), amount: fee, debitFrom: 'available' as never, code: 'REBATE' as never });
        credits.push({ ref: tradingRef(o.accountId, assetId), amount: fee, code: 'REBATE' as never });
      } else {
        const fromHeld = o === buyer && asset === 'QUOTE';
        debits.push({ ref: tradingRef(o.accountId, assetId), amount: fee, debitFrom: (fromHeld ? 'held' : 'available') as never, code: 'FEE' as never });
        credits.push({ ref: tradingRef(fees, assetId), amount: fee, code: 'FEE' as never });
        if (fromHeld) o.heldE18 -= fee;
      }
    }
    buyer.heldE18 -= quoteE18;
    seller.heldE18 -= baseE18;
    return { debits, credits, feeRows };
  }
  return { reservationFor, modifyRequired, settle };
}

const flat = (legs: { ref: Ref; amount: bigint; code: string; debitFrom?: string }[]) =>
  legs.map((l) => ({ accountId: l.ref.accountId, assetId: l.ref.assetId, amount: l.amount, code: l.code, ...(l.debitFrom ? { debitFrom: l.debitFrom } : {}) }));

describe('settlement matches the arithmetic it replaces', () => {
  it('settleFill: same legs in the same order, same fee rows, same held decreases', () => {
    const held = fc.bigInt({ min: 0n, max: 10n ** 40n });
    fc.assert(
      fc.property(marketArb(anySchedule), price, qty, fc.constantFrom('BUY' as const, 'SELL' as const), party(101n), party(202n), held, held, (market, p, q, takerSide, makerParty, takerParty, makerHeld, takerHeld) => {
        const maker: Order = { ...makerParty, id: 11n, heldE18: makerHeld };
        const taker: Order = { ...takerParty, id: 22n, heldE18: takerHeld };
        const ref = reference(new Map([[maker.accountId, maker.vipTier], [taker.accountId, taker.vipTier]]));
        const got = settleFill({ market, feeAccountId: FEE_ACCOUNT, price: p, qty: q, takerSide, maker: makerParty, taker: takerParty });
        const want = ref.settle(market, FEE_ACCOUNT, { price: p, qty: q, takerSide }, maker, taker);
        expect(got.debits).toEqual(flat(want.debits));
        expect(got.credits).toEqual(flat(want.credits));
        expect(got.maker).toEqual({ ...want.feeRows.get(11n), heldDecrease: makerHeld - maker.heldE18 });
        expect(got.taker).toEqual({ ...want.feeRows.get(22n), heldDecrease: takerHeld - taker.heldE18 });
        expect(got.notionalQ9).toBe(p * q);
      }),
      { numRuns: 2000 },
    );
  });

  it('reservationFor: same hold and notional cap for BUY (limit, protection, maxQuoteDebit) and SELL', () => {
    const maxQuoteDebit = fc.option(fc.bigInt({ min: 1n, max: 10n ** 18n }), { nil: undefined });
    fc.assert(
      fc.property(marketArb(anySchedule), fc.constantFrom('BUY' as const, 'SELL' as const), price, fc.option(price, { nil: undefined }), qty, feeAsset, maxQuoteDebit, (market, side, limit, protection, working, asset, mqd) => {
        const want = reference(new Map()).reservationFor(market, { price: limit, feeAsset: asset, ...(mqd !== undefined ? { maxQuoteDebit: mqd } : {}) }, { side }, working, protection);
        const got = reservationFor(market, { side, qty: working, limit: protection ?? limit, feeAsset: asset, maxQuoteDebit: mqd });
        expect(got.hold).toBe(want.hold);
        expect(got.cap).toBe(want.cap);
        expect(got.asset).toBe(side === 'BUY' ? 'QUOTE' : 'BASE');
      }),
      { numRuns: 2000 },
    );
  });

  it('reReservation: same required hold for a modify, and the delta against what is held', () => {
    fc.assert(
      fc.property(marketArb(anySchedule), fc.constantFrom('BUY' as const, 'SELL' as const), price, qty, feeAsset, fc.bigInt({ min: 0n, max: 10n ** 40n }), (market, side, p, leaves, asset, heldE18) => {
        const want = reference(new Map()).modifyRequired(market, { side, feeAsset: asset }, p, leaves);
        expect(reReservation(market, { side, price: p, leaves, feeAsset: asset, heldE18 })).toEqual({ required: want, delta: want - heldE18 });
      }),
      { numRuns: 2000 },
    );
  });
});
