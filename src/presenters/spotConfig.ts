import { z } from 'zod';
import { formatScaled } from '../domain/money.ts';
import type { Asset, Market } from '../services/markets.ts';
import { int64String } from './scalars.ts';

const assetSchema = z.strictObject({ unifiedAssetId: z.number().int(), symbol: z.string(), decimals: z.number().int() });

const feeTierSchema = z.strictObject({
  vipTier: z.number().int(),
  makerFeePpm: z.number().int().describe('Parts per million; negative is a rebate'),
  takerFeePpm: z.number().int().describe('Parts per million'),
});

/** A market of GET /v1/spot/config; the two scales keep the spec's snake_case names (2.1). */
export const spotMarketSchema = z.strictObject({
  symbol: z.string(),
  symbolId: z.number().int(),
  baseAsset: z.string(),
  baseAssetId: z.number().int(),
  quoteAsset: z.string(),
  quoteAssetId: z.number().int(),
  base_quantity_scale: z.number().int(),
  quote_quantity_scale: z.number().int(),
  tickSize: z.string().describe('Decimal price'),
  tickSizeQ9: int64String,
  minQty: z.string().describe('Decimal, base_quantity_scale'),
  minNotional: z.string().describe('Decimal, quote_quantity_scale'),
  fees: z.array(feeTierSchema).describe('One entry per VIP tier'),
});

export function presentSpotMarket(m: Market): z.infer<typeof spotMarketSchema> {
  return {
    symbol: m.symbol,
    symbolId: m.symbolId,
    baseAsset: m.base.symbol,
    baseAssetId: m.base.unifiedAssetId,
    quoteAsset: m.quote.symbol,
    quoteAssetId: m.quote.unifiedAssetId,
    base_quantity_scale: m.baseQuantityScale,
    quote_quantity_scale: m.quoteQuantityScale,
    tickSize: formatScaled(m.tickSize, 9),
    tickSizeQ9: m.tickSize.toString(),
    minQty: formatScaled(m.minQty, m.baseQuantityScale),
    minNotional: formatScaled(m.minNotional, m.quoteQuantityScale),
    fees: m.makerFeePpm.map((maker, vipTier) => ({ vipTier, makerFeePpm: maker, takerFeePpm: m.takerFeePpm[vipTier] as number })),
  };
}

/** GET /v1/spot/config (docs/api-decisions.md, "Spot configuration"). */
export const spotConfigSchema = z.strictObject({ assets: z.array(assetSchema), markets: z.array(spotMarketSchema) });

export function presentSpotConfig(catalog: { assets: readonly Asset[]; markets: readonly Market[] }): z.infer<typeof spotConfigSchema> {
  return {
    assets: catalog.assets.map((a) => ({ unifiedAssetId: a.unifiedAssetId, symbol: a.symbol, decimals: a.decimals })),
    markets: catalog.markets.map(presentSpotMarket),
  };
}
