import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, Kind, type DocumentNode, type ExecutionArgs, type ValidationContext } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { createYoga, type Plugin } from 'graphql-yoga';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { ApiError } from '../../domain/errors.ts';
import { apiErrorFromDatabase } from '../../infra/databaseErrors.ts';
import type { Db } from '../../infra/database.ts';
import type { Services } from '../../services/index.ts';
import type { Caller } from '../../auth/caller.ts';
import type { LiveCredential } from '../../auth/credentialWatch.ts';
import { authRequestOf } from '../rest/route.ts';
import { clientAddress, trustFunction } from '../clientAddress.ts';
import type { TrustProxy } from '../../config.ts';
import type { GraphQLContext } from './context.ts';
import { schema } from './schema.ts';
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
}

/** GraphQL errors carry the same key, code and violations as /v1 problem bodies. */
export function toGraphQLError(err: unknown): GraphQLError {
  if (err instanceof GraphQLError && !(err.originalError instanceof ApiError)) {
    if (err.originalError) return toGraphQLError(err.originalError);
    if (err.extensions.code) return err;
    // graphql-js's own refusals of a request's values (a missing or mistyped variable, a
    // scalar that does not parse) carry no code: they are the caller's, like a 400.
    return new GraphQLError(err.message, {
      ...(err.nodes ? { nodes: err.nodes } : {}),
      ...(err.path ? { path: err.path } : {}),
      extensions: { ...err.extensions, code: 'BAD_USER_INPUT', key: 'invalid-argument', status: 400 },
    });
  }
  const raw = err instanceof GraphQLError ? err.originalError : err;
  const original = raw instanceof ApiError ? raw : (apiErrorFromDatabase(raw) ?? raw);
  if (original instanceof ApiError) {
    return new GraphQLError(original.message, {
      extensions: {
        // Yoga turns `http` into the response status and headers (e.g. 429 with RateLimit-*).
        http: { status: original.status, headers: original.headers },
        code: original.code,
        key: original.key,
        status: original.status,
        ...(original.violations.length > 0 ? { violations: original.violations } : {}),
        ...original.extensions,
      },
    });
  }
  return new GraphQLError('internal error', { extensions: { code: 'INTERNAL', key: 'internal', status: 500 } });
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
        if (masked.extensions.code === 'INTERNAL') deps.onInternalError?.(err);
        return masked;
      },
    },
    plugins: [metricsPlugin, signaturePlugin, ...limitPlugins()],
    context: async ({ req, extra }) => {
      const caller = req
        ? (req.caller ?? (await deps.services.authenticator.authenticate(authRequestOf(req))))
        : extra?.caller;
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
            if (typeof req.body === 'string' && req.body !== '') throw new ApiError('unsupported-media-type', 'GraphQL requests must be application/json');
            throw new ApiError('invalid-argument', 'request body is empty', { violations: [{ fieldPath: 'body', message: 'is required', ruleId: 'required' }] });
          }
          const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
          response.headers.forEach((value, key) => void reply.header(key, value));
          reply.status(response.status);
          reply.send(response.body);
          return reply;
        },
      });
    },
    /** graphql-ws on the same path as HTTP; other upgrade paths are left to other handlers. */
    attachWebSocket(server: Server) {
      const wss = new WebSocketServer({ noServer: true });
      const trust = trustFunction(deps.trustProxy);
      const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (new URL(req.url ?? '/', 'http://localhost').pathname !== GRAPHQL_PATH) return;
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
          onSubscribe: async (ctx, _id, params) => {
            if (ctx.extra.live) {
              const caller = await ctx.extra.live.current();
              if (!caller) {
                ctx.extra.socket.close(4403, 'Forbidden');
                return [new GraphQLError('the connection’s credentials are no longer valid', { extensions: { code: 'UNAUTHENTICATED' } })];
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
              return [err instanceof GraphQLError ? withCode(err, 'GRAPHQL_PARSE_FAILED') : toGraphQLError(err)];
            }
            const errors = enveloped.validate(enveloped.schema, document);
            if (errors.length > 0) return errors;
            return {
              schema: enveloped.schema,
              document,
              operationName: params.operationName ?? null,
              variableValues: params.variables ?? null,
              contextValue: await enveloped.contextFactory(),
              rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
            };
          },
        },
        wss,
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
 */
export const GRAPHQL_LIMITS = { tokens: 1_000, depth: 10, aliases: 20, directives: 20, cost: 2_000 } as const;

function limitPlugins(): Plugin[] {
  // Validation limits report like any validation rule, so every broken limit is listed.
  const reported = { exposeLimits: true, propagateOnRejection: false, onReject: [(ctx: ValidationContext | null, err: GraphQLError) => ctx?.reportError(err)] };
  return [
    maxTokensPlugin({ exposeLimits: true, n: GRAPHQL_LIMITS.tokens }),
    maxDepthPlugin({ ...reported, n: GRAPHQL_LIMITS.depth, ignoreIntrospection: true, flattenFragments: true }),
    maxAliasesPlugin({ ...reported, n: GRAPHQL_LIMITS.aliases }),
    maxDirectivesPlugin({ ...reported, n: GRAPHQL_LIMITS.directives }),
    costLimitPlugin({ ...reported, maxCost: GRAPHQL_LIMITS.cost, ignoreIntrospection: true, flattenFragments: true }),
    clientErrorCodes,
  ] as Plugin[];
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
          extensions: { code: 'BAD_REQUEST', key: 'invalid-argument', status: 400, http: { status: 400 } },
        });
      }
    });
  },
  onParse() {
    return ({ result, replaceParseResult }) => {
      if (result instanceof GraphQLError) replaceParseResult(withCode(result, 'GRAPHQL_PARSE_FAILED'));
      else if (result instanceof Error) replaceParseResult(withCode(new GraphQLError(`Syntax Error: ${result.message}`), 'GRAPHQL_PARSE_FAILED'));
    };
  },
  onValidate() {
    return ({ result, setResult }) => {
      if (result.length > 0) setResult(result.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')));
    };
  },
};

/**
 * Yoga codes refusals of HTTP requests itself; graphql-ws ones get the same code here. The
 * status follows GraphQL over HTTP: 400 for `application/graphql-response+json`, 200 for
 * plain `application/json` clients (`spec`).
 */
function withCode(err: GraphQLError, code: string): GraphQLError {
  if (err.extensions.code) return err;
  return new GraphQLError(err.message, {
    ...(err.nodes ? { nodes: err.nodes } : {}),
    extensions: { ...err.extensions, code, key: 'invalid-argument', status: 400, http: { status: 400, spec: true } },
  });
}

type WsExtraFields = {
  caller?: Caller;
  clientIp?: string;
  live?: LiveCredential;
};

interface Enveloped {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
}
