import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { notionalScale, type NotionalScale } from '../domain/matching/index.ts';
import type { Db } from '../infra/database.ts';

const int = z.string().regex(/^[0-9]+$/).transform(BigInt);
const MarketsFile = z.object({
  assets: z.array(z.object({ unifiedAssetId: z.number().int().positive(), symbol: z.string(), name: z.string(), decimals: z.number().int().min(0).max(18) })),
  feeSchedules: z.record(z.string(), z.object({ makerPpm: z.array(z.number().int()).length(11), takerPpm: z.array(z.number().int()).length(11) })),
  markets: z.array(
    z.object({
      symbolId: z.number().int().positive(),
      symbol: z.string().regex(/^[A-Z0-9]+-[A-Z0-9]+$/),
      baseAssetId: z.number().int(),
      quoteAssetId: z.number().int(),
      baseQuantityScale: z.number().int().min(0).max(18),
      quoteQuantityScale: z.number().int().min(0).max(18),
      tickSize: int,
      minQty: int,
      minNotional: int,
      feeSchedule: z.string(),
    }),
  ),
});

export interface Asset {
  unifiedAssetId: number;
  symbol: string;
  decimals: number;
}

/** One spot market, as the engine and the services use it. */
export interface Market {
  symbolId: number;
  symbol: string;
  base: Asset;
  quote: Asset;
  baseQuantityScale: number;
  quoteQuantityScale: number;
  tickSize: bigint;
  minQty: bigint;
  minNotional: bigint;
  makerFeePpm: readonly number[];
  takerFeePpm: readonly number[];
  notional: NotionalScale;
}

export const DEFAULT_MARKETS_FILE = path.resolve(import.meta.dirname, '../../config/markets.json');

/**
 * Spot configuration: read from the config file and written to the database at start-up
 * (insert or update by the stable ids), so rows referencing markets and assets are valid.
 */
export async function loadMarkets(db: Db, file = DEFAULT_MARKETS_FILE): Promise<MarketCatalog> {
  const parsed = MarketsFile.parse(JSON.parse(await readFile(file, 'utf8')));
  for (const a of parsed.assets) {
    await db.asset.upsert({
      where: { unifiedAssetId: a.unifiedAssetId },
      update: { symbol: a.symbol, name: a.name, decimals: a.decimals },
      create: a,
    });
  }
  const assets = new Map(parsed.assets.map((a) => [a.unifiedAssetId, a]));
  const markets: Market[] = [];
  for (const m of parsed.markets) {
    const schedule = parsed.feeSchedules[m.feeSchedule];
    const base = assets.get(m.baseAssetId);
    const quote = assets.get(m.quoteAssetId);
    if (!schedule || !base || !quote) throw new Error(`market ${m.symbol}: unknown asset or fee schedule`);
    const { feeSchedule: _f, ...row } = m;
    await db.market.upsert({ where: { symbolId: m.symbolId }, update: row, create: row });
    await db.marketSequence.upsert({ where: { symbolId: m.symbolId }, update: {}, create: { symbolId: m.symbolId } });
    for (let vipTier = 0; vipTier <= 10; vipTier++) {
      const rates = { makerFeeRatePpm: schedule.makerPpm[vipTier] as number, takerFeeRatePpm: schedule.takerPpm[vipTier] as number };
      await db.marketFeeTier.upsert({
        where: { symbolId_vipTier: { symbolId: m.symbolId, vipTier } },
        update: rates,
        create: { symbolId: m.symbolId, vipTier, ...rates },
      });
    }
    markets.push({
      symbolId: m.symbolId,
      symbol: m.symbol,
      base,
      quote,
      baseQuantityScale: m.baseQuantityScale,
      quoteQuantityScale: m.quoteQuantityScale,
      tickSize: m.tickSize,
      minQty: m.minQty,
      minNotional: m.minNotional,
      makerFeePpm: schedule.makerPpm,
      takerFeePpm: schedule.takerPpm,
      notional: notionalScale(m.baseQuantityScale, m.quoteQuantityScale),
    });
  }
  return new MarketCatalog(markets, [...assets.values()]);
}

export class MarketCatalog {
  private readonly bySymbol: Map<string, Market>;
  private readonly byId: Map<number, Market>;
  private readonly assetsBySymbol: Map<string, Asset>;
  private readonly assetsById: Map<number, Asset>;

  constructor(
    readonly markets: readonly Market[],
    readonly assets: readonly Asset[],
  ) {
    this.bySymbol = new Map(markets.map((m) => [m.symbol, m]));
    this.byId = new Map(markets.map((m) => [m.symbolId, m]));
    this.assetsBySymbol = new Map(assets.map((a) => [a.symbol, a]));
    this.assetsById = new Map(assets.map((a) => [a.unifiedAssetId, a]));
  }

  market(symbol: string): Market | undefined {
    return this.bySymbol.get(symbol);
  }

  marketById(symbolId: number): Market | undefined {
    return this.byId.get(symbolId);
  }

  /** By symbol ("USDC") or unified numeric id ("4"). */
  asset(ref: string | number): Asset | undefined {
    if (typeof ref === 'number') return this.assetsById.get(ref);
    return /^[0-9]+$/.test(ref) ? this.assetsById.get(Number(ref)) : this.assetsBySymbol.get(ref.toUpperCase());
  }
}
