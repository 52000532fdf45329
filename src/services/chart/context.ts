import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { MarketCatalog } from '../markets.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { Publications } from '../publications.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { ChartLayerEvent } from './views.ts';

/** What the chart operations use. */
export interface ChartContext {
  db: Db;
  clock: Clock;
  markets: Pick<MarketCatalog, 'marketById'>;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
  /** Committed changes, on `${topicPrefix}chart:<owner public id>`. */
  publications: Publications<ChartLayerEvent>;
  topicPrefix: string;
}
