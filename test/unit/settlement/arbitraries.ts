import fc from 'fast-check';
import { notionalScale } from '../../../src/domain/matching/notional.ts';
import type { FeeAsset, FillParty, SettlementMarket } from '../../../src/domain/settlement/index.ts';

export const TIERS = 11;
export const BASE_ASSET = 1;
export const QUOTE_ASSET = 4;
export const FEE_ACCOUNT = 1n;

const tierRates = (rate: fc.Arbitrary<number>) => fc.array(rate, { minLength: TIERS, maxLength: TIERS });

/** Any rates the markets file accepts, up to a 100% fee or rebate. */
export const anySchedule = fc.record({ makerFeePpm: tierRates(fc.integer({ min: -1_000_000, max: 1_000_000 })), takerFeePpm: tierRates(fc.integer({ min: -1_000_000, max: 1_000_000 })) });

/**
 * Rates where no tier pays more than tier 0's higher rate: what reservations assume (see
 * maxFeePpm), and what config/markets.json has.
 */
export const coveredSchedule = fc
  .record({ maker0: fc.integer({ min: -5_000, max: 50_000 }), taker0: fc.integer({ min: -5_000, max: 50_000 }) })
  .chain(({ maker0, taker0 }) => {
    const top = Math.max(maker0, taker0, 0);
    const rest = tierRates(fc.integer({ min: -5_000, max: top })).map((r) => r.slice(1));
    return fc.record({ makerFeePpm: rest.map((r) => [maker0, ...r]), takerFeePpm: rest.map((r) => [taker0, ...r]) });
  });

export function marketArb(schedule: fc.Arbitrary<{ makerFeePpm: number[]; takerFeePpm: number[] }>, quoteScale = fc.integer({ min: 0, max: 18 })): fc.Arbitrary<SettlementMarket> {
  return fc.record({ baseScale: fc.integer({ min: 0, max: 18 }), quoteScale, schedule }).map(({ baseScale, quoteScale: qs, schedule: s }) => ({
    baseQuantityScale: baseScale,
    quoteQuantityScale: qs,
    notional: notionalScale(baseScale, qs),
    makerFeePpm: s.makerFeePpm,
    takerFeePpm: s.takerFeePpm,
    base: { unifiedAssetId: BASE_ASSET },
    quote: { unifiedAssetId: QUOTE_ASSET },
  }));
}

/** Q9 prices and base quantities within the bigint columns that store them. */
export const price = fc.bigInt({ min: 1n, max: 10n ** 15n });
export const qty = fc.bigInt({ min: 1n, max: 10n ** 12n });
export const feeAsset: fc.Arbitrary<FeeAsset> = fc.constantFrom('BASE', 'QUOTE');
export const tier = fc.integer({ min: 0, max: TIERS - 1 });

export function party(accountId: bigint, asset: fc.Arbitrary<FeeAsset> = feeAsset): fc.Arbitrary<FillParty> {
  return fc.record({ accountId: fc.constant(accountId), feeAsset: asset, vipTier: tier, cumNotionalQ9: fc.bigInt({ min: 0n, max: 10n ** 27n }) });
}
