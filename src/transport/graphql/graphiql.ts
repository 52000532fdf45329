import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * GraphiQL at /graphql served from @graphql-yoga/graphiql in node_modules: Yoga's own page
 * loads it from a CDN, which machines without internet cannot reach.
 */
export const GRAPHIQL_ASSETS_PATH = '/graphiql-assets';

const ASSETS: Record<string, string> = {
  'graphiql.css': 'text/css; charset=utf-8',
  'yoga-graphiql.umd.js': 'application/javascript; charset=utf-8',
  'monacoeditorwork/editor.worker.bundle.js': 'application/javascript; charset=utf-8',
  'monacoeditorwork/json.worker.bundle.js': 'application/javascript; charset=utf-8',
  'monacoeditorwork/graphql.worker..bundle.js': 'application/javascript; charset=utf-8',
};

/** Yoga's page with the assets served here; Monaco's workers are fetched once and run from blobs. */
export function renderGraphiQL(options: unknown): string {
  const base = GRAPHIQL_ASSETS_PATH;
  // `<` escaped so nothing in the options can close the script element.
  const opts = JSON.stringify(options ?? {}).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>GraphiQL · spot-exchange</title>
<link rel="stylesheet" href="${base}/graphiql.css"></head>
<body id="body" class="no-focus-outline"><div id="root">Loading GraphiQL…</div>
<script>
const workerUrls = {
  editorWorkerService: '${base}/monacoeditorwork/editor.worker.bundle.js',
  json: '${base}/monacoeditorwork/json.worker.bundle.js',
  graphql: '${base}/monacoeditorwork/graphql.worker..bundle.js',
};
const workers = {};
function prepareWorkers() {
  return Promise.all(Object.entries(workerUrls).map(async ([name, url]) => {
    const text = await (await fetch(url)).text();
    workers[name] = URL.createObjectURL(new Blob([text], { type: 'application/javascript' }));
  }));
}
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_id, label) => workers[label] };
</script>
<script src="${base}/yoga-graphiql.umd.js"></script>
<script>prepareWorkers().finally(() => YogaGraphiQL.renderYogaGraphiQL(root, ${opts}));</script>
</body></html>`;
}

/** Registers the assets' route; each file is read on first use, then kept. */
export function registerGraphiQLAssets(app: FastifyInstance): void {
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('@graphql-yoga/graphiql/package.json')), 'dist');
  const cache = new Map<string, Buffer>();
  app.get<{ Params: { '*': string } }>(`${GRAPHIQL_ASSETS_PATH}/*`, { config: { operationId: 'graphiqlAssets' }, schema: { hide: true } }, async (request, reply) => {
    const name = request.params['*'];
    const type = ASSETS[name];
    if (!type) return reply.callNotFound();
    let body = cache.get(name);
    if (!body) {
      body = await readFile(path.join(dir, name));
      cache.set(name, body);
    }
    return reply.type(type).header('cache-control', 'public, max-age=3600').send(body);
  });
}
