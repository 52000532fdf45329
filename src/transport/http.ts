import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { pino, type DestinationStream, type Logger } from 'pino';
import { validate as validateJson } from 'json-dup-key-validator';
import secureJson from 'secure-json-parse';
import type { z } from 'zod';
import { ApiError, errors } from '../domain/errorCatalogue.ts';
import { invalidArgument } from '../domain/errors.ts';
import type { Metrics } from '../infra/metrics.ts';
import { PROBLEM_CONTENT_TYPE, problemBody, toApiError, validationError } from './problem.ts';
import type { TrustProxy } from '../config.ts';
import { trustFunction } from './clientAddress.ts';
import { completeDocument } from './rest/openapi.ts';
import { registerDocs } from './docs.ts';
import { registerRoutes, type RouteAuth, type RouteSpec } from './rest/route.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    operationId?: string;
  }
  interface FastifyRequest {
    /** Overrides the route's operation label in metrics (GraphQL sets its root fields). */
    operationLabel?: string;
  }
}

export interface HttpDeps {
  logger: Logger;
  bodyLimitBytes: number;
  /** Deadlines for a request's headers and for the whole request (a trickled body is cut off). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /**
   * A connection on which nothing is read or written this long is closed: a response whose
   * client stopped reading (its writes stalled) does not hold its buffers for ever.
   */
  idleTimeoutMs: number;
  trustProxy: TrustProxy;
  problemBaseUrl: string;
  metrics: Metrics;
  /** Liveness of what the service needs: each check rejects when its dependency is down. */
  readiness: Record<string, () => Promise<void>>;
  /** What /readyz reports beside its checks without failing them (a quarantined projection entry). */
  readinessNotes?: () => Record<string, unknown>;
  routes: RouteSpec[];
  auth: RouteAuth;
  /** Registers the non-/v1 transports (GraphQL) on the same server. */
  extra?: (app: FastifyInstance) => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const READINESS_TIMEOUT_MS = 1000;

/** The one logger of the process: JSON lines, credentials redacted. */
export function createLogger(level: string, stream?: DestinationStream): Logger {
  const options = { level, redact: { paths: SECRET_HEADERS.map((h) => `req.headers["${h}"]`), censor: '[redacted]' } };
  return stream ? pino(options, stream) : pino(options);
}

/** Headers whose values are credentials: never written to a log line. */
export const SECRET_HEADERS = ['authorization', 'x-api-signature', 'cookie', 'sec-websocket-protocol'];

export async function createHttpServer(deps: HttpDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes,
    requestTimeout: deps.requestTimeoutMs,
    connectionTimeout: deps.idleTimeoutMs,
    // Node checks the deadlines every connectionsCheckingInterval (30 s by default, which
    // would let a slow client overstay by that much).
    http: {
      headersTimeout: deps.headersTimeoutMs,
      requestTimeout: deps.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, deps.headersTimeoutMs),
    },
    trustProxy: trustFunction(deps.trustProxy),
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false },
    // Errors raised before a route runs get the same problem+json body as every other.
    frameworkErrors: (err, request, reply) => {
      const apiError = frameworkError(err);
      request.log.info({ code: apiError.code, status: apiError.status }, 'request rejected');
      void sendProblem(reply, apiError, deps.problemBaseUrl, request);
    },
    clientErrorHandler: (err, socket) => answerClientError(err, socket, deps.problemBaseUrl),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(({ schema, httpPart }) => (data) => {
    // reportInput tells a missing field from a mistyped one; inputs are never echoed back.
    const result = (schema as z.ZodType).safeParse(data, { reportInput: true });
    return result.success ? { value: result.data } : { error: validationError(result.error, httpPart ?? 'request') };
  });
  app.setSerializerCompiler(serializerCompiler);

  // JSON bodies are kept verbatim as well as parsed: API-key signatures cover the raw text.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    if (text === '') {
      done(Object.assign(new Error('empty body'), { code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 }));
      return;
    }
    let parsed: unknown;
    try {
      parsed = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (err) {
      done(Object.assign(err as Error, { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 }));
      return;
    }
    // A signed body must mean one thing: with a repeated key, parsers disagree on which wins.
    if (validateJson(text, false) !== undefined) {
      done(invalidArgument('body', 'an object repeats a key', 'duplicate-key'));
      return;
    }
    done(null, parsed);
  });

  await app.register(swagger, {
    openapi: { openapi: '3.1.0', info: { title: 'Spot trading API', version: 'v1' } },
    transform: jsonSchemaTransform,
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  // Responses finished while draining close their keep-alive connection, or close()
  // would wait for the client to hang up.
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (draining) reply.header('connection', 'close');
  });

  app.addHook('onResponse', async (request, reply) => {
    const operation = request.operationLabel ?? request.routeOptions.config.operationId ?? 'unmatched';
    deps.metrics.observe(operation, request.method, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.setErrorHandler(async (err, request, reply) => {
    let apiError = toApiError(err);
    // A request refused before the charge that was to claim its signature (rest/route.ts)
    // uses it up now, before its answer: its replay is 401 whatever the first one got.
    try {
      await deps.auth.authenticator.claimSignature(request.caller);
    } catch (claimErr) {
      apiError = toApiError(claimErr);
    }
    if (apiError.key === 'internal') request.log.error({ err }, 'unhandled error');
    else request.log.info({ code: apiError.code, status: apiError.status }, 'request rejected');
    return sendProblem(reply, apiError, deps.problemBaseUrl, request);
  });

  app.setNotFoundHandler(async (request, reply) =>
    sendProblem(
      reply,
      errors.ROUTE_NOT_FOUND(`no route for ${request.method} ${request.url.split('?')[0]}`),
      deps.problemBaseUrl,
      request,
    ),
  );

  app.get('/healthz', { config: { operationId: 'healthz' }, schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: { operationId: 'readyz' }, schema: { hide: true } }, async (request, reply) => {
    const checks = await runChecks(deps.readiness);
    const ready = Object.values(checks).every((c) => c === 'ok');
    const notes = deps.readinessNotes?.() ?? {};
    if (ready) return { status: 'ok', checks, ...notes };
    return sendProblem(
      reply,
      errors.NOT_READY('a dependency is not reachable', { extensions: { checks, ...notes } }),
      deps.problemBaseUrl,
      request,
    );
  });

  app.get('/metrics', { config: { operationId: 'metrics' }, schema: { hide: true } }, async (_request, reply) => {
    const { contentType, body } = await deps.metrics.render();
    reply.header('content-type', contentType);
    return body;
  });

  // Built once: the route table does not change after start-up.
  let openapi: Record<string, unknown> | undefined;
  app.get('/v1/openapi.json', { config: { operationId: 'openapi' }, schema: { hide: true } }, async () =>
    (openapi ??= completeDocument(structuredClone(app.swagger()), deps.routes)),
  );

  await registerDocs(app);
  registerRoutes(app, deps.routes, deps.auth);
  deps.extra?.(app);
  return app;
}

async function runChecks(checks: Record<string, () => Promise<void>>): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), READINESS_TIMEOUT_MS);
      });
      try {
        await Promise.race([check(), timeout]);
        return [name, 'ok'] as const;
      } catch (err) {
        // A component that answers but is not serving says why (e.g. REBUILDING).
        if (err instanceof ApiError && err.code) return [name, err.code] as const;
        return [name, err instanceof Error && err.message === 'timeout' ? 'timeout' : 'unreachable'] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return Object.fromEntries(entries);
}

function frameworkError(err: { code?: string; message: string }): ApiError {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return errors.URI_TOO_LONG('a path segment is longer than any resource id');
  }
  if (err.code === 'FST_ERR_BAD_URL') {
    return errors.MALFORMED_URL('the request path is not a valid URL (bad percent-encoding)', {
      violations: [{ fieldPath: 'path', message: 'is not a valid URL path', ruleId: 'url' }],
    });
  }
  return errors.MALFORMED_REQUEST('the request cannot be routed');
}

/**
 * Node's HTTP parser refuses a request before Fastify sees it (bytes that are not HTTP,
 * oversized headers, deadlines): the answer is still a problem body, then the connection
 * ends. `end` rather than `destroy`, so the client reads the answer before the close.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex, problemBaseUrl: string): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? errors.HEADERS_TOO_LARGE('the request line and headers exceed the size limit')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errors.REQUEST_TIMEOUT('the request was not received in time')
        : errors.MALFORMED_REQUEST('the request is not valid HTTP/1.1');
  if (socket.writable) {
    const body = JSON.stringify(problemBody(apiError, problemBaseUrl, randomUUID()));
    socket.end(
      `HTTP/1.1 ${apiError.status} ${apiError.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}

/** How long a refused connection may take to read its answer before it is dropped. */
const CLIENT_ERROR_LINGER_MS = 1000;

function sendProblem(
  reply: import('fastify').FastifyReply,
  err: ApiError,
  problemBaseUrl: string,
  request: FastifyRequest,
) {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  return reply
    .code(err.status)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problemBody(err, problemBaseUrl, request.id)));
}
