import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createAuthenticator } from './auth/authenticate.ts';
import { loadConfig } from './config.ts';
import { systemClock } from './infra/clock.ts';
import { openDatabase } from './infra/database.ts';
import { openSharedStore } from './infra/redis.ts';
import { PageTokens } from './services/pageTokens.ts';
import { createRateLimiter } from './services/rateLimits.ts';
import { createWhiteboardService, whiteboardsContext } from './services/whiteboards/index.ts';
import { createCollab } from './transport/collab/server.ts';
import { createLogger } from './transport/http.ts';
import { exitOnStartupFailure, sharedStoreWarning } from './startupFailure.ts';

/**
 * A rooms-only node: whiteboard rooms at /collab and nothing else. The trading engine has
 * one owner per database (docs/scaling.md), so a full second process refuses to start;
 * rooms have no such owner and scale out on the same PostgreSQL and Redis, meeting
 * through the Redis fan-out. Same configuration as main.ts; SIGTERM stores every open
 * board before exiting.
 */
const config = loadConfig();
const logger = createLogger(config.logLevel);
const clock = systemClock();
const database = await openDatabase(config.database).catch(exitOnStartupFailure(config));
const store = await openSharedStore(config.redis, { commandTimeoutMs: config.rateLimitTimeoutMs });
const db = database.prisma;
const whiteboards = createWhiteboardService(
  whiteboardsContext({
    db,
    clock,
    // Rooms never page; the service wants a key all the same.
    pageTokens: new PageTokens(config.pageTokenSecret ?? randomBytes(32).toString('hex')),
    // Rooms never mutate boards' metadata either; the service wants a limiter all the same.
    limiter: createRateLimiter({ db, store }),
    events: store.events,
    topicPrefix: store.keyPrefix,
  }),
);
const collab = createCollab({
  whiteboards,
  authenticator: createAuthenticator({ db, store, clock }),
  store,
  redisUrl: config.redis.kind === 'redis' ? config.redis.url : undefined,
  logger,
  trustProxy: config.http.trustProxy,
});
const http = createServer((_req, res) => {
  res.writeHead(404).end();
});
collab.attach(http);
await new Promise<void>((resolve) => http.listen(config.http.port, config.http.host, resolve));
const address = http.address();
logger.info({ port: typeof address === 'object' && address ? address.port : config.http.port }, 'serving /collab');
const redisAway = sharedStoreWarning(store, config);
if (redisAway && config.logLevel !== 'silent') process.stderr.write(`${redisAway}\n`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      try {
        await collab.close();
        http.close();
        await store.close();
        await database.close();
        process.exit(0);
      } catch (err) {
        logger.error({ err }, 'error while shutting down');
        process.exit(1);
      }
    })();
  });
}
