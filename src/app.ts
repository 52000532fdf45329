import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.ts';
import { ApiError } from './domain/errors.ts';
import type { ChainAdapter } from './infra/chain/adapter.ts';
import { systemClock, type Clock } from './infra/clock.ts';
import { openDatabase, type Database } from './infra/database.ts';
import { Metrics } from './infra/metrics.ts';
import { openSharedStore, type SharedStore } from './infra/redis.ts';
import { createServices, type Services } from './services/index.ts';
import { PageTokens } from './services/pageTokens.ts';
import { createCollab, type Collab } from './transport/collab/server.ts';
import { createGraphQL } from './transport/graphql/server.ts';
import { SharedSubscriptions } from './transport/graphql/sharedSubscriptions.ts';
import { StreamConnections } from './transport/streamLimits.ts';
import { publicationListeners } from './services/publications.ts';
import { createHttpServer, createLogger } from './transport/http.ts';
import { restRoutes } from './transport/rest/routes.ts';
import { operatorRoutes, operatorTokenCheck } from './transport/rest/routes/operator.ts';
import type { RouteSpec } from './transport/rest/route.ts';
import type { QuarantinedEntry } from './services/trading/index.ts';

const LAST_USED_FLUSH_MS = 30_000;
const TRADING_TIMER_MS = 250;

export interface App {
  http: FastifyInstance;
  services: Services;
  database: Database;
  store: SharedStore;
  /** Whiteboard rooms at /collab. */
  collab: Collab;
  /** graphql-ws's public subscriptions, executed once per selection (their counts: tests, metrics). */
  shared: SharedSubscriptions;
  /** Listens on the configured port (0 picks a free one) and returns the bound URL. */
  listen(): Promise<string>;
  /** Stops accepting, drains in-flight requests, then closes the database and Redis. */
  close(): Promise<void>;
}

export interface CreateAppOptions {
  config: Config;
  clock?: Clock;
  logStream?: DestinationStream;
  /** Open infrastructure to use instead of the configured one (tests share their own). */
  database?: Database;
  store?: SharedStore;
  /** Whiteboard room limits other than the defaults (tests use small ones). */
  roomLimits?: Parameters<typeof createCollab>[0]['limits'];
  /** Routes added after the /v1 table (tests exercise shared conventions with them). */
  extraRoutes?: RouteSpec[];
  /** Told when this process loses its trading-engine lock (see ServiceDeps). */
  onEngineLockLost?: (err: Error) => void;
  /** See ServiceDeps.reactToEngineLockLoss. */
  reactToEngineLockLoss?: boolean;
  /** See ServiceDeps.chain. */
  chain?: ChainAdapter;
}

export async function createApp(options: CreateAppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock();
  const database = options.database ?? (await openDatabase(config.database));
  const store = options.store ?? (await openSharedStore(config.redis, { commandTimeoutMs: config.rateLimitTimeoutMs }).catch(async (err) => {
    await database.close();
    throw err;
  }));
  const pageTokens = new PageTokens(await pageTokenSecret(config));
  const logger = createLogger(config.logLevel, options.logStream);
  const metrics = new Metrics({ defaultMetrics: true });
  const services = await createServices({
    database,
    store,
    clock,
    pageTokens,
    auth: config.auth,
    logger,
    projectionDelayMs: config.projectionDelayMs,
    commitDeadlineMs: config.commitDeadlineMs,
    chainBlockMs: config.chainBlockMs,
    maxLiveTriggersPerAccount: config.maxLiveTriggersPerAccount,
    subscriberLimits: config.streams.subscriber,
    onProjectionLag: (seconds) => metrics.projectionLag(seconds),
    ...(options.onEngineLockLost ? { onEngineLockLost: options.onEngineLockLost } : {}),
    ...(options.reactToEngineLockLoss !== undefined ? { reactToEngineLockLoss: options.reactToEngineLockLoss } : {}),
    ...(options.chain ? { chain: options.chain } : {}),
  }).catch(async (err: unknown) => {
    if (!options.store) await store.close();
    if (!options.database) await database.close();
    throw err;
  });
  metrics.watchQuarantine(() => services.orders.engine.quarantined);
  const streams = new StreamConnections(config.streams.connections);
  const shared = new SharedSubscriptions(config.streams.subscriber);
  metrics.streams(() => {
    const { selections, sinks } = shared.stats;
    return { listeners: publicationListeners(store.events), credential_watches: services.authenticator.watching, connections: streams.open, shared_selections: selections, shared_subscriptions: sinks };
  });
  const graphql = createGraphQL({
    db: database.prisma,
    services,
    graphiql: config.env !== 'production',
    trustProxy: config.http.trustProxy,
    bodyLimitBytes: config.http.bodyLimitBytes,
    streams,
    idleTimeoutMs: config.streams.idleTimeoutMs,
    shared,
    problemBaseUrl: config.problemBaseUrl,
    onOperation: (req, label) => {
      req.operationLabel = label;
    },
    onInternalError: (err) => http.log.error({ err }, 'unhandled GraphQL error'),
  });

  const http = await createHttpServer({
    logger,
    bodyLimitBytes: config.http.bodyLimitBytes,
    headersTimeoutMs: config.http.headersTimeoutMs,
    requestTimeoutMs: config.http.requestTimeoutMs,
    idleTimeoutMs: config.streams.idleTimeoutMs,
    trustProxy: config.http.trustProxy,
    problemBaseUrl: config.problemBaseUrl,
    metrics,
    readiness: { database: () => database.ping(), redis: () => store.ping(), tradingEngine: async () => services.orders.engine.assertServing() },
    // A quarantined entry costs the accounts it touches, not the exchange: named, still ready.
    readinessNotes: () => quarantineNotes(services.orders.engine.quarantined),
    routes: [
      ...restRoutes(services),
      ...(config.operatorToken ? operatorRoutes(services) : []),
      ...(options.extraRoutes ?? []),
    ],
    auth: {
      authenticator: services.authenticator,
      ...(config.operatorToken ? { isOperator: operatorTokenCheck(config.operatorToken) } : {}),
    },
    extra: (app) => graphql.register(app),
  });
  const ws = graphql.attachWebSocket(http.server);
  const collab = createCollab({
    whiteboards: services.whiteboards,
    authenticator: services.authenticator,
    store,
    redisUrl: config.redis.kind === 'redis' ? config.redis.url : undefined,
    logger,
    trustProxy: config.http.trustProxy,
    ...(options.roomLimits ? { limits: options.roomLimits } : {}),
  });
  collab.attach(http.server);

  // API keys' last-use times travel through the shared store; the database catches up here.
  const flushLastUsed = () =>
    services.apiKeys.flushLastUsed().catch((err: unknown) => http.log.warn({ err }, 'lastUsedAt flush failed'));
  const flushTimer = setInterval(flushLastUsed, LAST_USED_FLUSH_MS);
  flushTimer.unref();
  // GTD expiry and dead-man switches run on the clock, including for state found after a restart.
  // A sweep still running skips the next tick: two sweeps would both find a switch armed
  // and the second would cancel orders placed after the first fired.
  let sweeping = false;
  const tradingTimer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    // While trading state is rebuilt the sweeps are refused (503) like any request and run
    // again on the next tick: worth a note, not an error.
    const failed = (what: string) => (err: unknown) =>
      err instanceof ApiError && err.status === 503 ? http.log.info({ code: err.code }, `${what} deferred`) : http.log.error({ err }, `${what} failed`);
    void Promise.all([
      services.orders.engine.expireDue().catch(failed('GTD expiry')),
      services.orders.fireDeadManSwitches().catch(failed('dead-man switch check')),
      services.orders.engine.runDueTwaps().catch(failed('TWAP slices')),
      services.chain.tick().catch(failed('simulated chain block')),
      services.orders.engine.prune().catch(failed('client order id pruning')),
    ]).finally(() => (sweeping = false));
  }, TRADING_TIMER_MS);
  tradingTimer.unref();

  let closing: Promise<void> | undefined;
  return {
    http,
    services,
    database,
    store,
    collab,
    shared,
    async listen() {
      return http.listen({ port: config.http.port, host: config.http.host });
    },
    close() {
      closing ??= (async () => {
        clearInterval(flushTimer);
        clearInterval(tradingTimer);
        // Rooms first: their unstored edits need the database.
        await collab.close();
        await ws.close();
        await http.close();
        await services.orders.engine.flushed();
        // Recovery would apply the rest from the journal; a clean stop leaves nothing to replay.
        await services.orders.engine.readable().catch(() => undefined);
        await flushLastUsed();
        await services.releaseEngineLock();
        if (!options.store) await store.close();
        if (!options.database) await database.close();
      })();
      return closing;
    },
  };
}

/**
 * Page tokens must survive restarts and be shared by every API process. Configured:
 * PAGE_TOKEN_SECRET. Embedded mode keeps a generated one in DATA_DIR; otherwise a
 * per-process secret is used (tokens then die with the process) and a warning is due.
 */
async function pageTokenSecret(config: Config): Promise<string> {
  if (config.pageTokenSecret) return config.pageTokenSecret;
  if (config.database.kind === 'postgres') return randomBytes(32).toString('hex');
  const file = path.resolve(config.dataDir, 'page-token.secret');
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing && existing.trim().length >= 32) return existing.trim();
  const fresh = randomBytes(32).toString('hex');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, fresh, { mode: 0o600 });
  return fresh;
}

/**
 * /readyz's `projection` field while entries are parked: each entry that failed itself,
 * with its error and how many later entries wait behind it. Absent when none is parked.
 */
function quarantineNotes(parked: readonly QuarantinedEntry[]): Record<string, unknown> {
  if (parked.length === 0) return {};
  const failed = parked.filter((e) => e.behindSeq === null);
  return {
    projection: {
      parkedEntries: parked.length,
      quarantined: failed.map((e) => ({
        seq: e.seq.toString(),
        error: e.error,
        sqlState: e.sqlState,
        parkedAt: e.parkedAt.toISOString(),
        parkedBehind: parked.filter((b) => b.behindSeq === e.seq).length,
      })),
    },
  };
}
