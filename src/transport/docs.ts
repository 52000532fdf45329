import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/** swagger-ui-dist's files served at /docs/<name>; nothing is fetched from outside. */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Spot trading API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  displayOperationId: true,
  filter: true,
  validatorUrl: null,
  tryItOutEnabled: false,
});
`;

/** The API reference at /docs: /v1/openapi.json rendered by Swagger UI, bundled from npm. */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map(
    await Promise.all(Object.entries(ASSETS).map(async ([name, type]) => [name, { type, body: await readFile(path.join(dir, name)) }] as const)),
  );
  const hidden = { config: { operationId: 'docs' }, schema: { hide: true } };
  app.get('/docs', hidden, async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/docs/init.js', hidden, async (_request, reply) => reply.type('application/javascript; charset=utf-8').send(INIT));
  app.get<{ Params: { name: string } }>('/docs/:name', hidden, async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) return reply.callNotFound();
    return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body);
  });
}
