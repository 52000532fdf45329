import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { ChainAdapter } from '../../infra/chain/adapter.ts';
import type { MarketCatalog } from '../markets.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { TermsService } from '../terms.ts';

/** What the chain operations (deposit addresses, and later flows and withdrawals) use. */
export interface ChainContext {
  db: Db;
  clock: Clock;
  markets: MarketCatalog;
  limiter: RateLimiter;
  terms: TermsService;
  chain: ChainAdapter;
}
