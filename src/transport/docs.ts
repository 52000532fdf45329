import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * Redoc's standalone bundle, served at /docs/redoc.standalone.js: it holds everything the
 * page needs, so nothing is fetched from outside, and the package has no install-time or
 * run-time telemetry (Swagger UI's pulls in Scarf's).
 */
const BUNDLE = 'redoc.standalone.js';

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Spot trading API reference</title>
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/${BUNDLE}"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/**
 * Redoc's sidebar shows its maker's logo from their CDN: the bundle is served with an empty
 * image there instead (the logo hides itself when it does not load), so the page asks
 * nothing of another host.
 */
const OUTSIDE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/**
 * The page may load and fetch only from this origin, should a later Redoc reach out again.
 * Redoc injects its styles and runs its search index in a worker made from a blob.
 */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

// Native scrollbars: with about a hundred operations Redoc's own scrollbar is what makes it slow.
const INIT = `Redoc.init('/v1/openapi.json', {
  nativeScrollbars: true,
  requiredPropsFirst: true,
  expandResponses: '200,201',
  hideHostname: true,
}, document.getElementById('reference'));
`;

/** The API reference at /docs: /v1/openapi.json rendered by Redoc, bundled from npm. */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  const dir = path.dirname(createRequire(import.meta.url).resolve('redoc/package.json'));
  const bundle = (await readFile(path.join(dir, 'bundles', BUNDLE), 'utf8')).replaceAll(OUTSIDE_LOGO, 'data:,');
  const hidden = { config: { operationId: 'docs' }, schema: { hide: true } };
  app.get('/docs', hidden, async (_request, reply) => reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(PAGE));
  app.get('/docs/init.js', hidden, async (_request, reply) => reply.type('application/javascript; charset=utf-8').send(INIT));
  app.get(`/docs/${BUNDLE}`, hidden, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(bundle),
  );
}
