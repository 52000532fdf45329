import { ERROR_CATALOGUE, ERROR_KEYS, type ErrorCode } from '../../domain/errorCatalogue.ts';
import { COMMON_ERRORS, OPERATION_ERRORS } from './operationErrors.ts';
import type { RouteSpec } from './route.ts';
import { PROBLEM_CONTENT_TYPE } from '../problem.ts';

/**
 * Everything /v1/openapi.json says beyond the request and response schemas is derived here
 * from the route table, so a route added to routes/*.ts is documented like every other one:
 * its tag from its path, its security from its auth mode, and the errors it can give from
 * its auth mode and operationErrors.ts.
 */

/** Tags by path prefix, most specific first; a path under none is tagged by its first segment. */
const TAGS: { prefixes: string[]; name: string; description: string }[] = [
  { prefixes: ['/operator/'], name: 'Operator', description: 'Operator API (`Authorization: Bearer <OPERATOR_TOKEN>`); served only when OPERATOR_TOKEN is set. Not for third parties.' },
  { prefixes: ['/v1/auth/address-book'], name: 'Address book', description: 'Saved addresses and their tags.' },
  { prefixes: ['/v1/auth/api-'], name: 'API keys', description: 'API policies and Ed25519 API keys.' },
  { prefixes: ['/v1/auth/'], name: 'Auth', description: 'Wallet sign-in (EIP-191), sessions, terms and subaccounts.' },
  { prefixes: ['/v1/trading/rate-limits', '/v1/rate-limits'], name: 'Rate limits', description: 'Rate-limit policy and the caller\'s trading quotas.' },
  { prefixes: ['/v1/orders', '/v1/spot/'], name: 'Trading', description: 'Orders, fills, the order book and public trades.' },
  { prefixes: ['/v1/triggers'], name: 'Triggers', description: 'Stop-loss and take-profit triggers and their events.' },
  { prefixes: ['/v1/balances', '/v1/transfers'], name: 'Ledger', description: 'Balances and ledger transfers.' },
  { prefixes: ['/v1/chain/'], name: 'Chain', description: 'Supported chains, their assets, and deposit addresses.' },
  { prefixes: ['/v1/layouts'], name: 'Layouts', description: 'Saved and published chart layouts.' },
  { prefixes: ['/v1/chart/'], name: 'Chart', description: 'Chart layers and drawings.' },
  { prefixes: ['/v1/collab/'], name: 'Collaboration', description: 'Whiteboards and their members.' },
];

export function tagOf(url: string): { name: string; description: string } {
  const known = TAGS.find((t) => t.prefixes.some((prefix) => url.startsWith(prefix)));
  if (known) return known;
  const segment = url.split('/').filter(Boolean)[1] ?? 'other';
  const name = segment.charAt(0).toUpperCase() + segment.slice(1).replace(/-/g, ' ');
  return { name, description: `Operations under /v1/${segment}.` };
}

/**
 * The codes a route can give (COMMON_ERRORS of its auth mode and its own OPERATION_ERRORS),
 * by status: its error responses, and their `x-codes` on the operation.
 */
function errorCodesOf(route: RouteSpec): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...COMMON_ERRORS[route.auth], ...(OPERATION_ERRORS[route.operationId] ?? [])])) {
    const status = ERROR_KEYS[ERROR_CATALOGUE[code].key].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [status, list.sort()]));
}

const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'InvalidArgument', description: 'Invalid argument: `violations` names each offending field.' },
  401: { name: 'Unauthenticated', description: 'Missing or invalid credentials. For a signed request whose X-API-TIMESTAMP is outside the accepted window, the body carries `serverTimeMs` (code TIMESTAMP_OUT_OF_WINDOW).' },
  403: { name: 'PermissionDenied', description: 'The credentials do not allow this operation.' },
  404: { name: 'NotFound', description: 'Not found, or not owned by the caller.' },
  409: { name: 'Conflict', description: 'Conflicts with the resource\'s current state (stale revision, duplicate client order id, ...).' },
  413: { name: 'PayloadTooLarge', description: 'The request body is larger than the limit.' },
  415: { name: 'UnsupportedMediaType', description: 'Request bodies must be application/json.' },
  429: { name: 'RateLimitExceeded', description: 'Quota exceeded: retry after `rate_limit.retry_after_ms` (or Retry-After) plus a small jitter, with the same request.' },
  503: { name: 'Unavailable', description: 'Unavailable. For a mutation the outcome is unknown: reconcile (by client order id for orders) before sending a new request.' },
};

/**
 * The catalogue's codes answered with `status`, as `x-codes` of its shared response, each
 * with when it is given; an operation's own `x-codes` says which of them it can give.
 */
function codesOf(status: number): { code: string; description: string }[] {
  return Object.entries(ERROR_CATALOGUE)
    .filter(([, entry]) => ERROR_KEYS[entry.key].status === status)
    .map(([code, entry]) => ({ code, description: entry.when }));
}

const RATE_LIMIT_HEADERS: Record<string, { description: string; schema: { type: string } }> = {
  'RateLimit-Limit': { description: 'Active weighted limit of the rejected pool.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Capacity remaining at rejection.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until a retry may succeed, rounded up.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds until a retry may succeed, rounded up.', schema: { type: 'integer' } },
  'X-Service-RateLimit-Policy-Version': { description: 'Version of the policy that rejected the request.', schema: { type: 'string' } },
};

const PROBLEM_SCHEMA = {
  type: 'object',
  description: 'RFC 9457 problem details with the service\'s `code` and `violations`.',
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri', description: 'URI ending in the error key (`invalid-argument`, `rate-limit-exceeded`, ...).' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable machine-readable code, e.g. BAD_REQUEST, CONFLICT_DUPLICATE_CLIENT_ORDER_ID: one of the `x-codes` of the response (all of them: docs/api-decisions.md, "Error codes").' },
    requestId: { type: 'string' },
    serverTimeMs: { type: 'string', description: 'Server clock in epoch milliseconds; on 401 TIMESTAMP_OUT_OF_WINDOW.' },
    violations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['fieldPath', 'message', 'ruleId'],
        properties: { fieldPath: { type: 'string' }, message: { type: 'string' }, ruleId: { type: 'string' } },
      },
    },
    rate_limit: {
      type: 'object',
      description: 'Present on 429. uint64 fields are JSON strings.',
      properties: {
        reason: { type: 'string' },
        limit: { type: 'string' },
        remaining: { type: 'string' },
        retry_after_ms: { type: 'string' },
        policy_version: { type: 'string' },
        operation_id: { type: 'string' },
        policy_class: { type: 'string' },
        scope: { type: 'string', enum: ['CLIENT_IP', 'AUTH_SUBJECT', 'API_KEY', 'ACCOUNT', 'SUBACCOUNT'] },
        refill_model: { type: 'string' },
      },
    },
  },
  additionalProperties: true,
};

const SECURITY_SCHEMES = {
  session: { type: 'http', scheme: 'bearer', description: 'Session token from walletLogin.' },
  apiKeyId: { type: 'apiKey', in: 'header', name: 'X-API-KEY-ID', description: 'API key id.' },
  apiKeyTimestamp: { type: 'apiKey', in: 'header', name: 'X-API-TIMESTAMP', description: 'Milliseconds since the epoch; must be within the accepted window of the server clock.' },
  apiKeySignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-SIGNATURE',
    description: 'Base64 Ed25519 signature of `timestamp\\nMETHOD\\npathWithQuery\\nbody` with the key\'s private key.',
  },
  operatorToken: { type: 'http', scheme: 'bearer', description: 'OPERATOR_TOKEN (operator routes only).' },
};

function securityOf(route: RouteSpec): Record<string, string[]>[] {
  if (route.auth === 'public') return [];
  if (route.auth === 'operator') return [{ operatorToken: [] }];
  return [{ session: [] }, { apiKeyId: [], apiKeyTimestamp: [], apiKeySignature: [] }];
}

type Doc = Record<string, any>;

/** Completes the document @fastify/swagger built from the route schemas. */
export function completeDocument(doc: Doc, routes: RouteSpec[]): Doc {
  const byId = new Map(routes.map((r) => [r.operationId, r]));
  const tags = new Map<string, string>();
  const usedResponses = new Set<number>();
  for (const pathItem of Object.values(doc.paths ?? {}) as Doc[]) {
    for (const operation of Object.values(pathItem) as Doc[]) {
      const route = byId.get(operation.operationId);
      if (!route) continue;
      const tag = tagOf(route.url);
      tags.set(tag.name, tag.description);
      operation.tags = [tag.name];
      operation.security = securityOf(route);
      const codes = errorCodesOf(route);
      for (const status of codes.keys()) {
        usedResponses.add(status);
        operation.responses[String(status)] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` };
      }
      // Which of its response's codes this operation can give (src/transport/rest/operationErrors.ts).
      operation['x-codes'] = Object.fromEntries([...codes].map(([status, list]) => [String(status), list]));
      for (const [status, response] of Object.entries(operation.responses as Record<string, Doc>)) {
        if (response.$ref || !status.startsWith('2')) continue;
        response.description = 'Success';
        // Every /v1 answer is a JSON object; a route without a response schema is still typed as one.
        if (!response.content && status !== '204') {
          response.content = { 'application/json': { schema: { type: 'object', additionalProperties: true } } };
        }
      }
      const content = operation.requestBody?.content?.['application/json'];
      if (content && route.examples) content.examples = route.examples;
    }
  }
  const responses: Doc = {};
  for (const status of [...usedResponses].sort()) {
    const { name, description } = ERROR_RESPONSES[status]!;
    responses[name] = {
      description,
      'x-codes': codesOf(status),
      ...(status === 429 ? { headers: Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((h) => [h, { $ref: `#/components/headers/${h}` }])) } : {}),
      content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return {
    ...doc,
    info: {
      ...doc.info,
      description:
        'The /v1 REST API of the spot-trading service. Requests are authenticated with a session token ' +
        '(wallet sign-in) or signed with an Ed25519 API key; errors are application/problem+json. ' +
        'The same data is served over GraphQL at /graphql (queries, mutations, graphql-ws subscriptions).',
      license: { name: 'Proprietary', url: '/docs' },
    },
    // Relative: the document is served by the server it describes, whatever its address.
    servers: [{ url: '/', description: 'The server that serves this document' }],
    tags: [...tags].sort(([a], [b]) => a.localeCompare(b)).map(([name, description]) => ({ name, description })),
    components: {
      ...doc.components,
      securitySchemes: SECURITY_SCHEMES,
      schemas: { ...doc.components?.schemas, Problem: PROBLEM_SCHEMA },
      responses,
      headers: RATE_LIMIT_HEADERS,
    },
  };
}
