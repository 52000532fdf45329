import type { Services } from '../../services/index.ts';
import type { RouteSpec } from './route.ts';
import { addressBookRoutes } from './routes/addressBook.ts';
import { apiKeyRoutes } from './routes/apiKeys.ts';
import { authRoutes } from './routes/auth.ts';
import { chartRoutes } from './routes/chart.ts';
import { layoutRoutes } from './routes/layouts.ts';
import { ledgerRoutes } from './routes/ledger.ts';
import { rateLimitRoutes } from './routes/rateLimits.ts';
import { tradingRoutes } from './routes/trading.ts';
import { triggerRoutes } from './routes/triggers.ts';
import { chainRoutes } from './routes/chain.ts';
import { whiteboardRoutes } from './routes/whiteboards.ts';

/**
 * The /v1 route table: one entry per operation of the spec, each a single service call,
 * grouped by resource in routes/.
 */
export function restRoutes(services: Services): RouteSpec[] {
  return [...authRoutes(services), ...apiKeyRoutes(services), ...rateLimitRoutes(services), ...addressBookRoutes(services), ...tradingRoutes(services), ...triggerRoutes(services), ...ledgerRoutes(services), ...chainRoutes(services), ...layoutRoutes(services), ...chartRoutes(services), ...whiteboardRoutes(services)];
}
