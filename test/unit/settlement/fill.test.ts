import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toE18 } from '../../../src/domain/money.ts';
import { feePpm, sellReservation, settleFill, type FillInput, type FillSettlement } from '../../../src/domain/settlement/index.ts';
import { FEE_ACCOUNT, anySchedule, feeAsset, marketArb, party, price, qty } from './arbitraries.ts';

/** Any fill an order could make: a SELL pays its fee in quote (orderInput.ts refuses BASE). */
const fill = fc.constantFrom('BUY' as const, 'SELL' as const).chain((takerSide) => {
  const [makerAsset, takerAsset] = takerSide === 'BUY' ? [fc.constant('QUOTE' as const), feeAsset] : [feeAsset, fc.constant('QUOTE' as const)];
  return fc
    .record({ market: marketArb(anySchedule), price, qty, maker: party(101n, makerAsset), taker: party(202n, takerAsset) })
    .map((f): FillInput => ({ ...f, takerSide, feeAccountId: FEE_ACCOUNT }));
});

function perAsset(s: FillSettlement): Map<number, bigint> {
  const sums = new Map<number, bigint>();
  for (const d of s.debits) sums.set(d.assetId, (sums.get(d.assetId) ?? 0n) + d.amount);
  for (const c of s.credits) sums.set(c.assetId, (sums.get(c.assetId) ?? 0n) - c.amount);
  return sums;
}

describe('settleFill', () => {
  it('legs sum to zero per asset, fees and rebates included, and no leg is negative', () => {
    fc.assert(
      fc.property(fill, (input) => {
        const s = settleFill(input);
        for (const [, diff] of perAsset(s)) expect(diff).toBe(0n);
        for (const leg of [...s.debits, ...s.credits]) expect(leg.amount >= 0n).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('fees round up and are never negative at ppm >= 0; rebates round down and are paid by the fee account', () => {
    fc.assert(
      fc.property(fill, (input) => {
        const s = settleFill(input);
        for (const [role, part] of [['maker', s.maker], ['taker', s.taker]] as const) {
          const who = input[role];
          const ppm = BigInt(feePpm(input.market, role === 'maker', who.vipTier));
          const gross = part.asset === 'BASE' ? s.baseE18 : s.quoteE18;
          expect(part.asset).toBe(who.feeAsset);
          expect(part.fee >= 0n).toBe(true);
          if (ppm >= 0n) {
            expect(part.rebate).toBe(false);
            // The smallest fee that is at least the exact one.
            expect(part.fee * 1_000_000n >= gross * ppm && (part.fee - 1n) * 1_000_000n < gross * ppm).toBe(true);
          } else {
            expect(part.rebate).toBe(true);
            // The largest rebate that is at most the exact one.
            expect(part.fee * 1_000_000n <= gross * -ppm && (part.fee + 1n) * 1_000_000n > gross * -ppm).toBe(true);
          }
          // The order's own leg: it pays a fee out of its balances, or is credited a rebate.
          const own = part.rebate ? s.credits.filter((c) => c.code === 'REBATE' && c.accountId === who.accountId) : s.debits.filter((d) => d.code === 'FEE' && d.accountId === who.accountId);
          expect(own.map((l) => l.amount)).toEqual(part.fee === 0n ? [] : [part.fee]);
        }
        // The fee account's side: it collects every fee and pays every rebate, per asset.
        for (const assetId of [input.market.base.unifiedAssetId, input.market.quote.unifiedAssetId]) {
          const due = (rebate: boolean) => [s.maker, s.taker].filter((p) => p.rebate === rebate && (p.asset === 'BASE') === (assetId === input.market.base.unifiedAssetId)).reduce((a, p) => a + p.fee, 0n);
          const sum = (legs: { accountId: bigint; assetId: number; amount: bigint; code: string }[], code: string) => legs.filter((l) => l.accountId === FEE_ACCOUNT && l.assetId === assetId && l.code === code).reduce((a, l) => a + l.amount, 0n);
          expect(sum(s.credits, 'FEE')).toBe(due(false));
          expect(sum(s.debits, 'REBATE')).toBe(due(true));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("the seller's base debit, from its hold, is the fill's quantity in E18, as a SELL reserves it", () => {
    fc.assert(
      fc.property(fill, (input) => {
        const s = settleFill(input);
        const seller = input.takerSide === 'BUY' ? input.maker : input.taker;
        const baseDebits = s.debits.filter((d) => d.accountId === seller.accountId && d.assetId === input.market.base.unifiedAssetId);
        expect(baseDebits).toEqual([{ accountId: seller.accountId, assetId: input.market.base.unifiedAssetId, amount: toE18(input.qty, input.market.baseQuantityScale), debitFrom: 'held', code: 'TRADE' }]);
        expect(baseDebits[0]?.amount).toBe(sellReservation(input.market, input.qty));
        expect((input.takerSide === 'BUY' ? s.maker : s.taker).heldDecrease).toBe(baseDebits[0]?.amount);
      }),
      { numRuns: 2000 },
    );
  });

  it("each order's held decrease is exactly its account's debits from held", () => {
    fc.assert(
      fc.property(fill, (input) => {
        const s = settleFill(input);
        for (const role of ['maker', 'taker'] as const) {
          const fromHeld = s.debits.filter((d) => d.accountId === input[role].accountId && d.debitFrom === 'held').reduce((a, d) => a + d.amount, 0n);
          expect(s[role].heldDecrease).toBe(fromHeld);
        }
        expect(s.debits.some((d) => d.accountId === FEE_ACCOUNT && d.debitFrom === 'held')).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
