import { createAuthenticator } from '../auth/authenticate.ts';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { ChainAdapter } from '../infra/chain/adapter.ts';
import type { Clock } from '../infra/clock.ts';
import type { Database } from '../infra/database.ts';
import type { SharedStore } from '../infra/redis.ts';
import { createAddressBookService } from './addressBook/index.ts';
import { createApiKeyService } from './apiKeys/index.ts';
import { createChartService } from './chart/index.ts';
import { createLedgerService } from './ledger/index.ts';
import { createLayoutService } from './layouts/index.ts';
import { createOperatorService } from './operator.ts';
import { PageTokens } from './pageTokens.ts';
import { createRateLimiter } from './rateLimits.ts';
import { createSubaccountService } from './accounts/index.ts';
import { createSystemService } from './system.ts';
import { createTermsService } from './terms.ts';
import { createWalletAuthService } from './walletAuth.ts';
import { createWhiteboardService, whiteboardsContext } from './whiteboards/index.ts';
import { loadMarkets } from './markets.ts';
import { assignSmartAccountAddresses, createChainService, ensureNetworks } from './chain/index.ts';
import type { SubscriberLimits } from './publications.ts';
import { Topics } from './topicBus.ts';
import type { TopicMap } from './topics.ts';
import { simulatedChain } from '../infra/chain/simulated.ts';
import { createOrdersService, EngineOwnership, ensureSystemAccounts, TRADING_LOCAL_TOPICS, type EngineOwner, type TradingEngine } from './trading/index.ts';

/** What every service may depend on; tests build it from real parts configured per test. */
export interface ServiceDeps {
  database: Database;
  store: SharedStore;
  clock: Clock;
  pageTokens: PageTokens;
  auth: Config['auth'];
  logger: Logger;
  /**
   * Told when this process stops being the only writer (its engine lock's connection died,
   * or a commit found the fence moved). Trading is refused until the engine has taken the
   * lock again and rebuilt its state.
   */
  onEngineLockLost?: (err: Error) => void;
  /**
   * False: a lost lock goes unnoticed by the engine, which keeps trying to commit and is
   * stopped by the fence alone (tests of the fence stand in for an owner that has not yet
   * noticed). Default true: the engine stops at once and takes the lock again.
   */
  reactToEngineLockLoss?: boolean;
  /** See Config.projectionDelayMs. */
  projectionDelayMs?: number;
  /** The simulated chain's seed (deposit addresses derive from it). */
  chainSeed?: string;
  /** The chain to use instead of the simulated one (tests watch what is broadcast). */
  chain?: ChainAdapter;
  /** See Config.chainBlockMs. */
  chainBlockMs?: number;
  /** See Config.maxLiveTriggersPerAccount. */
  maxLiveTriggersPerAccount?: number;
  /** Told each trading journal entry's projection lag, in seconds (metrics). */
  onProjectionLag?: (seconds: number) => void;
  /** See Config.commitDeadlineMs. */
  commitDeadlineMs?: number;
  /** How far a subscriber may fall behind before it is cut off (Config.streams.subscriber). */
  subscriberLimits?: SubscriberLimits;
}

/** The simulated chain's default seed: not a secret (no key stands behind its addresses). */
const SIMULATED_CHAIN_SEED = 'spot-exchange simulated chain';

/** Builds every service; trading state (markets, books, balances) is loaded from the database first. */
export async function createServices(deps: ServiceDeps) {
  const db = deps.database.prisma;
  const { clock, store, pageTokens } = deps;
  // Every service publishes and subscribes through this one, each area seeing its own topics.
  const topics = new Topics<TopicMap>(store.events, store.keyPrefix, deps.subscriberLimits, TRADING_LOCAL_TOPICS);
  // One process owns the books and balances of a database (docs/scaling.md): a second one
  // started on the same database refuses to run rather than become a second writer.
  let engine: TradingEngine | undefined;
  const lost = (err: Error) => {
    deps.logger.error({ err }, 'lost the trading-engine lock: trading is refused until this process holds it again');
    deps.onEngineLockLost?.(err);
  };
  const lockLost = (err: Error) => {
    lost(err);
    if (deps.reactToEngineLockLoss !== false) engine?.ownershipLost(err);
  };
  const ownership = new EngineOwnership(deps.database, lockLost);
  if (!(await ownership.reacquire())) {
    throw new Error('another process owns the trading engines of this database; refusing to start a second writer');
  }
  const owner: EngineOwner = deps.reactToEngineLockLoss === false ? { get fence() { return ownership.fence; }, reacquire: async () => false, advance: () => ownership.advance() } : ownership;
  const markets = await loadMarkets(db);
  await ensureNetworks(db, markets);
  await assignSmartAccountAddresses(db);
  const systemAccounts = await ensureSystemAccounts(db);
  const authenticator = createAuthenticator({ db, store, clock });
  const limiter = createRateLimiter({ db, store });
  const terms = createTermsService({ db, clock, currentVersion: deps.auth.termsVersion, limiter });
  const orders = createOrdersService({ db, sql: deps.database.sql, clock, markets, limiter, pageTokens, topics, systemAccounts, logger: deps.logger, owner, onFenced: (err) => lost(err as Error), projectionDelayMs: deps.projectionDelayMs ?? 0, chainBlockMs: deps.chainBlockMs ?? 1_000, ...(deps.maxLiveTriggersPerAccount !== undefined ? { maxLiveTriggersPerAccount: deps.maxLiveTriggersPerAccount } : {}), ...(deps.onProjectionLag ? { onProjectionLag: deps.onProjectionLag } : {}), ...(deps.commitDeadlineMs !== undefined ? { commitDeadlineMs: deps.commitDeadlineMs } : {}) });
  engine = orders.engine;
  await engine.start();
  const ledger = createLedgerService({
    db,
    clock,
    markets,
    engine: orders.engine,
    limiter,
    pageTokens,
    systemAccounts,
  });
  return {
    /** Gives up the trading-engine lock: the last step of a clean stop. */
    releaseEngineLock: () => ownership.release(),
    markets,
    orders,
    ledger,
    authenticator,
    limiter,
    operator: createOperatorService({ db, limiter, engine: orders.engine }),
    chain: createChainService({
      db,
      clock,
      markets,
      limiter,
      terms,
      pageTokens,
      engine: orders.engine,
      systemAccounts,
      chain: deps.chain ?? simulatedChain(deps.chainSeed ?? SIMULATED_CHAIN_SEED),
      blockMs: deps.chainBlockMs ?? 1_000,
      authorizationDomain: deps.auth.signInDomain,
      topics,
    }),
    system: createSystemService({ clock }),
    walletAuth: createWalletAuthService({
      db,
      clock,
      sessionTtlSeconds: deps.auth.sessionTtlSeconds,
      signInDomain: deps.auth.signInDomain,
      limiter,
      onSessionEnded: (sessionId) => authenticator.sessionEnded(sessionId),
    }),
    terms,
    subaccounts: createSubaccountService({ db, clock, pageTokens, limiter }),
    addressBook: createAddressBookService({ db, clock, pageTokens, limiter }),
    apiKeys: createApiKeyService({ db, clock, store, pageTokens, terms, authenticator, limiter }),
    layouts: createLayoutService({ db, clock, pageTokens, limiter }),
    chart: createChartService({ db, clock, markets, pageTokens, limiter, topics }),
    whiteboards: createWhiteboardService(whiteboardsContext({ db, clock, pageTokens, limiter, events: store.events, topicPrefix: store.keyPrefix })),
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
