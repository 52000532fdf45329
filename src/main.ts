import { createApp } from './app.ts';
import { loadConfig } from './config.ts';

/** Composition root: config -> infrastructure -> services -> transports. */
const config = loadConfig();
const app = await createApp({ config });
const url = await app.listen();
app.http.log.info(
  { url, database: app.database.kind, sharedStore: app.store.kind },
  'serving /v1, /graphql, /healthz, /readyz and /metrics',
);

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
