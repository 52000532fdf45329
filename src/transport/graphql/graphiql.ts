import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * GraphiQL at /graphql, served from node_modules: Yoga's own page loads it from a CDN,
 * which machines without internet cannot reach. GraphiQL 3's browser build runs on React
 * 18's; the newer GraphiQL that @graphql-yoga/graphiql bundles could only be installed
 * with peer-dependency conflicts (docs/api-decisions.md, "GraphiQL assets").
 */
export const GRAPHIQL_ASSETS_PATH = '/graphiql-assets';

const JS = 'application/javascript; charset=utf-8';
/** Each asset by the name it is served under: its package and its file there. */
const ASSETS: Record<string, { pkg: string; file: string; type: string }> = {
  'react.production.min.js': { pkg: 'react', file: 'umd/react.production.min.js', type: JS },
  'react-dom.production.min.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: JS },
  'graphiql.min.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: JS },
  'graphiql.min.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
};

/** The page Yoga serves for a browser's GET /graphql; `options` are Yoga's GraphiQL options. */
export function renderGraphiQL(options: unknown): string {
  const base = GRAPHIQL_ASSETS_PATH;
  const { endpoint, defaultQuery } = (options ?? {}) as { endpoint?: string; defaultQuery?: string };
  // `<` escaped so nothing in the options can close the script element.
  const opts = JSON.stringify({ endpoint: endpoint ?? '/graphql', defaultQuery }).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>GraphiQL · spot-exchange</title>
<link rel="stylesheet" href="${base}/graphiql.min.css">
<style>body { margin: 0; } #graphiql { height: 100vh; }</style></head>
<body><div id="graphiql">Loading GraphiQL…</div>
<script src="${base}/react.production.min.js"></script>
<script src="${base}/react-dom.production.min.js"></script>
<script src="${base}/graphiql.min.js"></script>
<script>
const options = ${opts};
const url = new URL(options.endpoint, location.href);
const subscriptionUrl = new URL(url);
subscriptionUrl.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
const fetcher = GraphiQL.createFetcher({ url: url.href, subscriptionUrl: subscriptionUrl.href });
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, { fetcher, defaultQuery: options.defaultQuery, defaultEditorToolsVisibility: true }),
);
</script>
</body></html>`;
}

/** Registers the assets' route; each file is read on first use, then kept. */
export function registerGraphiQLAssets(app: FastifyInstance): void {
  const require = createRequire(import.meta.url);
  const cache = new Map<string, Buffer>();
  app.get<{ Params: { '*': string } }>(`${GRAPHIQL_ASSETS_PATH}/*`, { config: { operationId: 'graphiqlAssets' }, schema: { hide: true } }, async (request, reply) => {
    const name = request.params['*'];
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return reply.callNotFound();
    let body = cache.get(name);
    if (!body) {
      body = await readFile(path.join(path.dirname(require.resolve(`${asset.pkg}/package.json`)), asset.file));
      cache.set(name, body);
    }
    return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(body);
  });
}
