import type { Services } from '../../services/index.ts';
import type { RouteSpec } from './route.ts';

/**
 * The /v1 route table: one line per operation of the spec, each a single service call.
 * Operations arrive with the issues that deliver them.
 */
export function restRoutes(_services: Services): RouteSpec[] {
  return [];
}
