import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { localOperatorToken } from './localOperatorToken.ts';
import { startupBanner } from './startupBanner.ts';
import { exitOnStartupFailure, sharedStoreWarning } from './startupFailure.ts';

/** Composition root: config -> infrastructure -> services -> transports. */
const loaded = loadConfig();
const local = await localOperatorToken(loaded);
const config = local ? { ...loaded, operatorToken: local.token } : loaded;
// A lost engine lock (say, the database's connections were reset) does not end the
// process: trading is refused until the engine holds the lock again and has rebuilt its
// state (docs/scaling.md).
const app = await createApp({ config }).catch(exitOnStartupFailure(config));
const url = await app.listen();
app.http.log.info(
  { url, database: app.database.kind, sharedStore: app.store.kind },
  'serving /v1, /graphql, /docs, /collab, /healthz, /readyz and /metrics',
);
// For the person who started it: plain text on stderr, the JSON log lines stay on stdout.
if (config.logLevel !== 'silent') {
  process.stderr.write(startupBanner(config, url, local?.file));
  const redisAway = sharedStoreWarning(app.store, config);
  if (redisAway) process.stderr.write(`${redisAway}\n`);
}

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    app.http.log.info({ signal }, 'draining in-flight requests');
    const force = setTimeout(() => {
      app.http.log.error('drain deadline passed; exiting');
      process.exit(1);
    }, config.http.shutdownGraceMs);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.http.log.error({ err }, 'error while shutting down');
        process.exit(1);
      },
    );
  });
}
