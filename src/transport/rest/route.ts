import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import type { z } from 'zod';
import type { Caller } from '../../auth/caller.ts';
import type { Authenticator } from '../../auth/authenticate.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { authRequestOf } from '../authRequest.ts';

/**
 * `public`: no credentials needed (any sent are still checked); `caller`: a session or API
 * key; `operator`: the operator token (those routes exist only when OPERATOR_TOKEN is set).
 */
export type AuthMode = 'public' | 'caller' | 'operator';

/**
 * One /v1 operation: its stable id (the spec's name, used for metrics and OpenAPI),
 * its request schemas (zod, which also parse the spec's codec) and one service call.
 * Transports hold no rules: the handler only maps the parsed input to a service.
 */
export interface RouteSpec<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  A extends AuthMode = AuthMode,
  R extends z.ZodType = z.ZodType,
> {
  operationId: string;
  method: HTTPMethods;
  url: string;
  summary: string;
  auth: A;
  body?: B;
  query?: Q;
  params?: P;
  /** Response schema (src/presenters/): documents the contract, and the serializer checks the body with it. */
  response?: R;
  successStatus?: number;
  /** Request-body examples for /v1/openapi.json, where the spec leaves the variants open. */
  examples?: Record<string, { summary: string; value: unknown }>;
  handler(
    input: { body: z.output<B>; query: z.output<Q>; params: z.output<P> },
    ctx: RequestContext<A>,
  ): Promise<z.input<R>>;
}

export interface RequestContext<A extends AuthMode = AuthMode> {
  requestId: string;
  ip: string;
  caller: A extends 'caller' ? Caller : A extends 'operator' ? undefined : Caller | undefined;
  request: FastifyRequest;
}

export function defineRoute<
  B extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodUndefined,
  P extends z.ZodType = z.ZodUndefined,
  A extends AuthMode = 'caller',
  R extends z.ZodType = z.ZodType,
>(spec: RouteSpec<B, Q, P, A, R>): RouteSpec {
  return spec as unknown as RouteSpec;
}

export interface RouteAuth {
  authenticator: Pick<Authenticator, 'authenticate' | 'claimSignature'>;
  /** Checks `Authorization: Bearer <OPERATOR_TOKEN>`; absent when the operator API is off. */
  isOperator?: (authorization: string | undefined) => boolean;
}

/**
 * Operations whose first effect is their rate-limit charge (the handler reads, checks and
 * refuses, but changes nothing before `limiter.admit`): their signature is claimed in the
 * charge's own Redis call, one round trip instead of two. A refusal before the charge
 * claims it on the way out (the error handler), and so does an answer that charged nothing,
 * so a replay is still 401 with nothing done.
 */
const CLAIMED_WITH_CHARGE: ReadonlySet<string> = new Set(['createOrder', 'cancelOrder', 'cancelAllOrders', 'modifyOrder', 'replaceOrder']);

export function registerRoutes(app: FastifyInstance, routes: RouteSpec[], auth: RouteAuth): void {
  for (const route of routes) {
    const claimedWithCharge = CLAIMED_WITH_CHARGE.has(route.operationId);
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
      // Credentials are checked before the body is validated: a stranger learns nothing
      // about an operation's schema.
      preValidation: async (request) => {
        if (route.auth === 'operator') {
          if (!auth.isOperator?.(request.headers.authorization)) {
            throw errors.OPERATOR_TOKEN_REQUIRED('operator token required');
          }
          return;
        }
        const caller = await auth.authenticator.authenticate(authRequestOf(request));
        if (!caller && route.auth === 'caller') {
          throw errors.CREDENTIALS_REQUIRED('this operation needs a session token or a signed API key request');
        }
        request.caller = caller;
        // Every signature is used up before the body is validated or the handler changes
        // anything, read or mutation, charged or not: a replay is refused (401) with nothing
        // done. Here, unless the charge claims it.
        if (!claimedWithCharge) await auth.authenticator.claimSignature(caller);
      },
      handler: async (request, reply) => {
        const out = await route.handler(
          { body: request.body, query: request.query, params: request.params },
          { requestId: request.id, ip: request.ip, caller: request.caller as Caller, request },
        );
        if (claimedWithCharge) await auth.authenticator.claimSignature(request.caller);
        reply.code(route.successStatus ?? 200);
        return out;
      },
    });
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}
