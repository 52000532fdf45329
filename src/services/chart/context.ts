import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { MarketCatalog } from '../markets.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { TopicBus } from '../topicBus.ts';
import type { ChartLayerEvent } from './views.ts';

/** What the chart operations use. */
export interface ChartContext {
  db: Db;
  clock: Clock;
  markets: Pick<MarketCatalog, 'marketById'>;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
  /** Committed changes are published on the `chart` topic of their owner. */
  topics: TopicBus<ChartTopics>;
}

/** The chart's topic: an owner's committed layer and drawing changes, keyed by the owner's public id. */
export interface ChartTopics {
  chart: { key: string; payload: ChartLayerEvent };
}
