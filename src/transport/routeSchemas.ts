import type { z } from 'zod';
import type { Services } from '../services/index.ts';
import { restRoutes } from './rest/routes.ts';

interface RequestSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

let table: Map<string, RequestSchemas> | undefined;

/**
 * The request schemas of a /v1 operation, read from the route table by operationId, for the
 * GraphQL field of the same operation to validate with. This serves the areas whose schemas
 * still live in their route file (trading, triggers, chain, wallet sign-in, rate limits): once
 * an area moves them to `<op>.schema.ts`, its resolvers import those instead. The table is built
 * for its schemas only; no handler of it runs, so it needs no services.
 */
export function requestSchemasOf(operationId: string): RequestSchemas {
  table ??= new Map(restRoutes({} as Services).map((r) => [r.operationId, { params: r.params, query: r.query, body: r.body }]));
  const schemas = table.get(operationId);
  if (!schemas) throw new Error(`no /v1 operation ${operationId}`);
  return schemas;
}
