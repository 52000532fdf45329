import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, GraphQLError, Kind, type DocumentNode, type ExecutionArgs, type ValidationContext } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { createYoga, type Plugin } from 'graphql-yoga';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { ApiError, codes, errors, type ErrorCode } from '../../domain/errorCatalogue.ts';
import type { Db } from '../../infra/database.ts';
import type { Services } from '../../services/index.ts';
import type { Caller } from '../../auth/caller.ts';
import type { LiveCredential } from '../../auth/credentialWatch.ts';
import { authRequestOf } from '../authRequest.ts';
import { clientAddress, trustFunction } from '../clientAddress.ts';
import { problemBody, PROBLEM_CONTENT_TYPE } from '../problem.ts';
import { tooMany, type StreamConnections } from '../streamLimits.ts';
import type { TrustProxy } from '../../config.ts';
import type { GraphQLContext } from './context.ts';
import { codeExtensions, toGraphQLError } from './errors.ts';
import { schema } from './schema.ts';
import type { FrameSocket, SharedSubscriptions, Started } from './sharedSubscriptions.ts';
import { registerGraphiQLAssets, renderGraphiQL } from './graphiql.ts';

export const GRAPHQL_PATH = '/graphql';

interface ServerContext {
  req?: FastifyRequest;
  reply?: FastifyReply;
  /** graphql-ws: the caller authenticated once at connection_init. */
  extra?: { caller?: Caller; clientIp?: string; live?: LiveCredential };
}

/**
 * graphql-ws authentication happens at connection_init: `connectionParams` carries either
 * `authorization: "Bearer <sessionToken>"` or the three API-key headers, signed over
 * `timestamp\nGET\n/graphql\n` (the upgrade request, no body).
 */
function wsAuthRequest(params: Record<string, unknown> | undefined, ip: string) {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(params ?? {})) if (typeof v === 'string') headers[k.toLowerCase()] = v;
  return { method: 'GET', target: GRAPHQL_PATH, headers, rawBody: '', ip };
}

export interface GraphQLDeps {
  db: Db;
  services: Services;
  graphiql: boolean;
  /** Called with the operation label once the document is known (for metrics). */
  onOperation?: (req: FastifyRequest, label: string) => void;
  /** Unexpected errors are masked for clients; this is where they are logged. */
  onInternalError?: (err: unknown) => void;
  /** Which proxies may name a WebSocket client's address, as for HTTP requests (TRUST_PROXY). */
  trustProxy: TrustProxy;
  /** The largest graphql-ws message, as for HTTP bodies (BODY_LIMIT_BYTES). */
  bodyLimitBytes: number;
  /** Streaming connections per client address and credential, subscriptions per socket. */
  streams: StreamConnections;
  /** A graphql-ws socket that has not answered a ping within this is dropped. */
  idleTimeoutMs: number;
  /** Public subscriptions over graphql-ws, executed once per selection for every socket. */
  shared: SharedSubscriptions;
  problemBaseUrl: string;
}

/** The root fields an operation selects: a bounded label, unlike client-chosen names. */
export function operationLabel(document: DocumentNode, operationName?: string | null): string {
  const op = document.definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName),
  );
  if (!op || op.kind !== Kind.OPERATION_DEFINITION) return 'graphql';
  const fields = op.selectionSet.selections
    .filter((s) => s.kind === Kind.FIELD)
    .map((s) => (s.kind === Kind.FIELD ? s.name.value : ''))
    .sort();
  return `graphql:${op.operation}:${fields.join(',')}`;
}

export function createGraphQL(deps: GraphQLDeps) {
  const metricsPlugin: Plugin<GraphQLContext & ServerContext> = {
    onExecute({ args }) {
      const req = (args.contextValue as ServerContext).req;
      if (req && deps.onOperation) deps.onOperation(req, operationLabel(args.document, args.operationName));
    },
  };
  // Every signed operation, query or mutation, charged or not, uses its signature up before
  // it runs: a replay is refused (401) with nothing done.
  const signaturePlugin: Plugin<GraphQLContext & ServerContext> = {
    async onExecute({ args, setResultAndStopExecution }) {
      const caller = (args.contextValue as GraphQLContext).caller;
      try {
        await deps.services.authenticator.claimSignature(caller);
      } catch (err) {
        setResultAndStopExecution({ errors: [toGraphQLError(err)] });
      }
      return undefined;
    },
    // A subscription over HTTP (server-sent events) is a signed request like any other: its
    // signature is used up before it starts. One over graphql-ws used its up at connection_init.
    async onSubscribe({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext;
      if (!context.request) return;
      try {
        await deps.services.authenticator.claimSignature(context.caller);
      } catch (err) {
        setResultAndStopExecution({ errors: [toGraphQLError(err)] });
      }
    },
  };

  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    graphiql: deps.graphiql,
    renderGraphiQL,
    landingPage: false,
    logging: false,
    maskedErrors: {
      maskError: (err) => {
        const masked = toGraphQLError(err);
        if (masked.extensions.code === codes.INTERNAL) deps.onInternalError?.(err);
        return masked;
      },
    },
    plugins: [metricsPlugin, signaturePlugin, ...limitPlugins()],
    context: async ({ req, extra }) => {
      const caller = req
        ? (req.caller ?? (await deps.services.authenticator.authenticate(authRequestOf(req))))
        : extra?.caller;
      if (req && caller) req.caller = caller;
      return {
        db: deps.db,
        services: deps.services,
        requestId: req?.id ?? 'ws',
        ...(caller ? { caller } : {}),
        ...(extra?.clientIp ? { clientIp: extra.clientIp } : {}),
        ...(extra?.live ? { live: extra.live } : {}),
        ...(req ? { request: req } : {}),
      };
    },
  });

  /** Takes a streaming slot of the client address and of the credential, or throws 429 naming the limit. */
  const holdStream = (ip: string, caller: Caller | undefined): (() => void) => {
    const releaseIp = deps.streams.acquireIp(ip);
    if (!caller) return releaseIp;
    try {
      const releaseCredential = deps.streams.acquireCredential(caller);
      return () => {
        releaseIp();
        releaseCredential();
      };
    } catch (err) {
      releaseIp();
      throw err;
    }
  };

  return {
    yoga,
    /** Serves GET/POST /graphql through Fastify so body limits, request ids and logs apply. */
    register(app: FastifyInstance) {
      if (deps.graphiql) registerGraphiQLAssets(app);
      app.route({
        url: GRAPHQL_PATH,
        method: ['GET', 'POST', 'OPTIONS'],
        config: { operationId: 'graphql' },
        // Documented by its own schema (graphql/schema.graphql, GraphiQL), not in /v1/openapi.json.
        schema: { hide: true },
        handler: async (req, reply) => {
          // Yoga would answer these in a shape of its own (415 with a `null` body).
          if (req.method === 'POST' && (typeof req.body !== 'object' || req.body === null)) {
            if (typeof req.body === 'string' && req.body !== '') throw errors.UNSUPPORTED_MEDIA_TYPE('GraphQL requests must be application/json');
            throw errors.BAD_REQUEST('request body is empty', { violations: [{ fieldPath: 'body', message: 'is required', ruleId: 'required' }] });
          }
          const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
          if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
            let release: () => void;
            try {
              release = holdStream(req.ip, req.caller);
            } catch (err) {
              // The stream has started its subscription: it is read once, so that cancelling
              // it ends the subscription too.
              const reader = response.body?.getReader();
              await reader?.read();
              await reader?.cancel();
              throw err;
            }
            reply.raw.once('close', release);
          }
          response.headers.forEach((value, key) => void reply.header(key, value));
          reply.status(response.status);
          reply.send(response.body);
          return reply;
        },
      });
    },
    /** graphql-ws on the same path as HTTP; other upgrade paths are left to other handlers. */
    attachWebSocket(server: Server) {
      // A frame larger than an HTTP body is refused: ws closes the socket with 1009.
      const wss = new WebSocketServer({ noServer: true, maxPayload: deps.bodyLimitBytes });
      const trust = trustFunction(deps.trustProxy);
      const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (new URL(req.url ?? '/', 'http://localhost').pathname !== GRAPHQL_PATH) return;
        let release: () => void;
        try {
          release = deps.streams.acquireIp(clientAddress(req, trust));
        } catch (err) {
          refuseUpgrade(socket, err as ApiError, deps.problemBaseUrl);
          return;
        }
        socket.once('close', release);
        wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      };
      server.on('upgrade', onUpgrade);
      // A connection's credential is checked at connection_init, then followed by push
      // (CredentialWatch): a revocation, expiry, policy or IP-list change or logout reaches
      // the open socket at once, which is closed with 4403 when the credential is dead;
      // subscriptions check each event against the credential as it is now.
      const disposable = useServer<Record<string, unknown>, WsExtraFields>(
        {
          onConnect: async (ctx) => {
            try {
              const ip = clientAddress(ctx.extra.request, trust);
              ctx.extra.clientIp = ip;
              const authenticator = deps.services.authenticator;
              const caller = await authenticator.authenticate(wsAuthRequest(ctx.connectionParams, ip));
              // The connection's signature is used up here, once; its operations charge
              // buckets (mutations) without claiming it again.
              await authenticator.claimSignature(caller);
              if (caller) {
                try {
                  ctx.extra.releaseCredential = deps.streams.acquireCredential(caller);
                } catch (err) {
                  ctx.extra.socket.close(4429, closeReason((err as ApiError).code, (err as ApiError).message));
                  return false;
                }
                ctx.extra.socket.once('close', () => ctx.extra.releaseCredential?.());
                if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) ctx.extra.releaseCredential();
                const state = await authenticator.inspect(caller, ip);
                const live = authenticator.watch(state, ip);
                const socket = ctx.extra.socket;
                ctx.extra.caller = state.caller;
                ctx.extra.live = live;
                live.onChange(() => {
                  if (live.dead) socket.close(4403, 'Forbidden');
                });
                socket.once('close', () => live.release());
                if (socket.readyState !== socket.OPEN) live.release();
              }
              return true;
            } catch {
              return false;
            }
          },
          execute: (args: ExecutionArgs) => (args.rootValue as Enveloped).execute(args) as never,
          subscribe: (args: ExecutionArgs) => (args.rootValue as Enveloped).subscribe(args) as never,
          onSubscribe: async (ctx, id, params) => {
            // Counts this one: graphql-ws registers a subscription's id before it asks here.
            const limit = deps.streams.limits.subscriptionsPerConnection;
            if (Object.keys(ctx.subscriptions).length > limit) {
              return [toGraphQLError(tooMany(errors.SUBSCRIPTIONS_PER_CONNECTION, `at most ${limit} subscriptions at once on one graphql-ws connection`, limit))];
            }
            if (ctx.extra.live) {
              const caller = await ctx.extra.live.current();
              if (!caller) {
                ctx.extra.socket.close(4403, 'Forbidden');
                return [new GraphQLError('the connection’s credentials are no longer valid', { extensions: codeExtensions(codes.UNAUTHENTICATED) })];
              }
              ctx.extra.caller = caller;
            }
            const enveloped = yoga.getEnveloped({ ...ctx, extra: ctx.extra, params });
            // A document refused while parsing (the token limit) is the client's error, not
            // the socket's: graphql-ws would close it as an internal error.
            let document: DocumentNode;
            try {
              document = enveloped.parse(params.query);
            } catch (err) {
              return [err instanceof GraphQLError ? withCode(err, codes.GRAPHQL_PARSE_FAILED) : toGraphQLError(err)];
            }
            const invalid = enveloped.validate(enveloped.schema, document);
            if (invalid.length > 0) return invalid;
            const args = {
              schema: enveloped.schema,
              document,
              operationName: params.operationName ?? null,
              variableValues: params.variables ?? null,
              contextValue: await enveloped.contextFactory(),
              rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
            };
            // Refused here, like the other limits, so the client gets an error message rather than a result.
            const tooDear = costRefusal(args);
            if (tooDear) return [tooDear];
            // A public selection joins the execution other sockets share, run without any
            // socket's caller: only its checks above were this socket's.
            const key = deps.shared.keyOf({ document, operationName: params.operationName, variables: params.variables });
            if (key !== undefined) {
              const ws = ctx.extra.socket;
              // The upgraded request's TCP socket is the one ws writes to: corked around a
              // batch of frames, the batch leaves in one system call.
              const tcp = ctx.extra.request.socket;
              const socket: FrameSocket = {
                get bufferedAmount() {
                  return ws.bufferedAmount;
                },
                send: (frame, sent) => ws.send(frame, sent),
                cork: () => tcp.cork(),
                uncork: () => tcp.uncork(),
              };
              const start = async (): Promise<Started> => {
                const anonymous = yoga.getEnveloped({ params });
                const started = await anonymous.subscribe({ ...args, contextValue: await anonymous.contextFactory(), rootValue: undefined });
                return started as Started;
              };
              args.rootValue = { execute: enveloped.execute, subscribe: () => deps.shared.join(key, start, socket, id) };
            }
            return args;
          },
        },
        wss,
        // graphql-ws pings every idleTimeoutMs and drops a socket that has not answered the
        // previous ping: a peer gone, or one that stopped reading what it is sent.
        deps.idleTimeoutMs,
      );
      return {
        async close() {
          server.off('upgrade', onUpgrade);
          for (const client of wss.clients) client.close(1001, 'server shutting down');
          await disposable.dispose();
        },
      };
    },
  };
}

/**
 * What one document may ask of the server, checked before it runs (docs/api-decisions.md).
 * The token limit stops the parser before a deeply nested literal can exhaust its stack.
 * The cost limit lets one /v1-sized page through (1,000 rows of up to 30 fields): the trading
 * dashboard (balances, 50 open orders, 50 fills, 50 triggers) costs about 2,000.
 */
export const GRAPHQL_LIMITS = { tokens: 1_000, depth: 10, aliases: 20, directives: 20, cost: 30_000 } as const;

function limitPlugins(): Plugin[] {
  // Validation limits report like any validation rule, so every broken limit is listed.
  const reported = { exposeLimits: true, propagateOnRejection: false, onReject: [(ctx: ValidationContext | null, err: GraphQLError) => ctx?.reportError(err)] };
  return [
    maxTokensPlugin({ exposeLimits: true, n: GRAPHQL_LIMITS.tokens }),
    maxDepthPlugin({ ...reported, n: GRAPHQL_LIMITS.depth, ignoreIntrospection: true, flattenFragments: true }),
    maxAliasesPlugin({ ...reported, n: GRAPHQL_LIMITS.aliases }),
    maxDirectivesPlugin({ ...reported, n: GRAPHQL_LIMITS.directives }),
    costLimit,
    clientErrorCodes,
  ] as Plugin[];
}

/**
 * A document costs the rows it can return times the fields it asks of each (the weights in
 * builder.ts), so the cost follows page sizes, which often come from variables. It is
 * therefore measured as the operation starts, with its variables, rather than while
 * validating: Yoga caches a document's validation whatever the variables.
 */
const costLimit: Plugin = {
  onExecute({ args, setResultAndStopExecution }) {
    const refusal = costRefusal(args);
    if (refusal) setResultAndStopExecution({ errors: [refusal] });
  },
  onSubscribe({ args, setResultAndStopExecution }) {
    const refusal = costRefusal(args);
    if (refusal) setResultAndStopExecution({ errors: [refusal] });
  },
};

function costRefusal(args: ExecutionArgs): GraphQLError | undefined {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation) return undefined;
  // complexityFromQuery measures a document's first operation: give it the one that runs.
  const fragments = args.document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  let cost: number;
  try {
    cost = complexityFromQuery({ kind: Kind.DOCUMENT, definitions: [operation, ...fragments] }, { schema: args.schema, ctx: args.contextValue as object, variables: (args.variableValues ?? {}) as Record<string, unknown> }).complexity;
  } catch {
    return undefined; // invalid variables: execution refuses them with its own error
  }
  if (cost <= GRAPHQL_LIMITS.cost) return undefined;
  return new GraphQLError(`query cost ${cost} exceeds the limit of ${GRAPHQL_LIMITS.cost}: ask for smaller pages (first) or fewer fields`, {
    extensions: { ...codeExtensions(codes.QUERY_COST_EXCEEDED), http: { status: 400, spec: true }, cost, limit: GRAPHQL_LIMITS.cost },
  });
}

/** Every refusal of a document's shape or of malformed parameters carries a code (never INTERNAL). */
const clientErrorCodes: Plugin = {
  onRequestParse({ requestParser, setRequestParser }) {
    if (!requestParser) return;
    setRequestParser(async (request) => {
      try {
        return await requestParser(request);
      } catch (err) {
        if (err instanceof GraphQLError) throw err;
        throw new GraphQLError('malformed GraphQL request parameters (query, variables, extensions or operationName)', {
          extensions: { ...codeExtensions(codes.BAD_REQUEST), http: { status: 400 } },
        });
      }
    });
  },
  onParse() {
    return ({ result, replaceParseResult }) => {
      if (result instanceof GraphQLError) replaceParseResult(withCode(result, codes.GRAPHQL_PARSE_FAILED));
      else if (result instanceof Error) replaceParseResult(withCode(new GraphQLError(`Syntax Error: ${result.message}`), codes.GRAPHQL_PARSE_FAILED));
    };
  },
  onValidate() {
    return ({ result, setResult }) => {
      if (result.length > 0) setResult(result.map((e) => withCode(e, codes.GRAPHQL_VALIDATION_FAILED)));
    };
  },
};

/**
 * Yoga codes refusals of HTTP requests itself; graphql-ws ones get the same code here. The
 * status follows GraphQL over HTTP: 400 for `application/graphql-response+json`, 200 for
 * plain `application/json` clients (`spec`).
 */
function withCode(err: GraphQLError, code: ErrorCode): GraphQLError {
  if (err.extensions.code) return err;
  return new GraphQLError(err.message, {
    ...(err.nodes ? { nodes: err.nodes } : {}),
    extensions: { ...err.extensions, ...codeExtensions(code), http: { status: 400, spec: true } },
  });
}

type WsExtraFields = {
  releaseCredential?: () => void;
  caller?: Caller;
  clientIp?: string;
  live?: LiveCredential;
};

interface Enveloped {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
}

/** A WebSocket close reason is at most 123 bytes: the code, then as much of the message as fits. */
function closeReason(code: string, message: string): string {
  return Buffer.from(`${code}: ${message}`).subarray(0, 123).toString().replace(/\uFFFD$/, '');
}

/** An upgrade refused before it is accepted gets the problem body any HTTP request would. */
function refuseUpgrade(socket: Duplex, err: ApiError, problemBaseUrl: string): void {
  const body = JSON.stringify(problemBody(err, problemBaseUrl, randomUUID()));
  socket.end(
    `HTTP/1.1 ${err.status} ${err.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A client that does not read its answer does not keep the socket.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
