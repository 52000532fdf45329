import { invalidArgument } from '../../domain/errors.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { Asset, MarketCatalog } from '../markets.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { TradingEngine } from '../trading/index.ts';

/** What the ledger operations use. */
export interface LedgerContext {
  db: Db;
  clock: Clock;
  markets: MarketCatalog;
  /** Transfers are posted through the trading engine: the one writer of balances. */
  engine: TradingEngine;
  limiter: RateLimiter;
  pageTokens: PageTokens;
  systemAccounts: { custody: bigint; fees: bigint };
}

/** One side of a transfer: an account's ledger of one asset. */
export type BalanceRef = Parameters<TradingEngine['transfer']>[0][number];

export function assetOf(ctx: Pick<LedgerContext, 'markets'>, ref: string, fieldPath: string): Asset {
  const asset = ctx.markets.asset(ref);
  if (!asset) throw invalidArgument(fieldPath, 'is not a known asset symbol or id', 'asset');
  return asset;
}
