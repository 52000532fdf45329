import path from 'node:path';
import type { Config } from './config.ts';

/** What a person needs after `npm start`: where to point a client, and where the data lives. */
export function startupBanner(config: Config, listenUrl: string, operatorTokenFile?: string): string {
  // A wildcard bind is reached through localhost from the same machine.
  const base = listenUrl.replace('://0.0.0.0', '://localhost').replace('://[::]', '://localhost');
  const ws = base.replace(/^http/, 'ws');
  const database =
    config.database.kind === 'pglite'
      ? `embedded PGlite in ${path.resolve(config.database.dataDir, 'pglite')}`
      : `PostgreSQL ${redact(config.database.url)}${config.database.schema ? ` (schema ${config.database.schema})` : ''}`;
  const redis = config.redis.kind === 'redis' ? `Redis ${redact(config.redis.url)}` : 'in-process stand-in (single process only)';
  const lines = [
    '',
    `spot-exchange is serving (${config.env})`,
    `  REST /v1        ${base}/v1   (OpenAPI: ${base}/v1/openapi.json)`,
    `  API reference   ${base}/docs`,
    `  GraphQL         ${base}/graphql${config.env !== 'production' ? '   (GraphiQL in a browser)' : ''}; subscriptions ${ws}/graphql`,
    `  Whiteboards     ${ws}/collab`,
    `  Database        ${database}`,
    `  Shared store    ${redis}`,
    ...(config.database.kind === 'pglite' ? [`  Data directory  ${path.resolve(config.dataDir)}`] : []),
    ...(operatorTokenFile ? [`  Operator token  ${operatorTokenFile}   (local only; npm run demo reads it)`] : []),
    ...(config.operatorToken && !operatorTokenFile ? ['  Operator API    /operator/v1 (OPERATOR_TOKEN)'] : []),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** A URL without its password. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
