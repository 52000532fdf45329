import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { MarketCatalog } from '../markets.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { Topics } from '../topics.ts';

/** What the chart operations use. */
export interface ChartContext {
  db: Db;
  clock: Clock;
  markets: Pick<MarketCatalog, 'marketById'>;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
  /** Committed changes are published on the `chart` topic of their owner. */
  topics: Topics;
}
