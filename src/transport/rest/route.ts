import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { z } from 'zod';

/**
 * One /v1 operation: its stable id (the spec's name, used for metrics and OpenAPI),
 * its request schemas (zod, which also parse the spec's codec) and one service call.
 * Transports hold no rules: the handler only maps the parsed input to a service.
 */
export interface RouteSpec<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
> {
  operationId: string;
  method: HTTPMethods;
  url: string;
  summary: string;
  body?: B;
  query?: Q;
  params?: P;
  /** Response schema: documents the contract and strips anything not in it. */
  response?: z.ZodType;
  successStatus?: number;
  handler(
    input: { body: z.output<B>; query: z.output<Q>; params: z.output<P> },
    ctx: RequestContext,
  ): Promise<unknown>;
}

export interface RequestContext {
  requestId: string;
  ip: string;
  request: FastifyRequest;
}

export function defineRoute<B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, P extends z.ZodType = z.ZodUndefined>(
  spec: RouteSpec<B, Q, P>,
): RouteSpec {
  return spec as unknown as RouteSpec;
}

export function registerRoutes(app: FastifyInstance, routes: RouteSpec[]): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.url,
      config: { operationId: route.operationId },
      schema: {
        operationId: route.operationId,
        summary: route.summary,
        ...(route.body ? { body: route.body } : {}),
        ...(route.query ? { querystring: route.query } : {}),
        ...(route.params ? { params: route.params } : {}),
        ...(route.response ? { response: { [route.successStatus ?? 200]: route.response } } : {}),
      },
      handler: async (request, reply) => {
        const out = await route.handler(
          { body: request.body, query: request.query, params: request.params } as never,
          { requestId: request.id, ip: request.ip, request },
        );
        reply.code(route.successStatus ?? 200);
        return out;
      },
    });
  }
}
