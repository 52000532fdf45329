import createClient, { type Client, type Middleware } from 'openapi-fetch';
import * as ed from '@noble/ed25519';
import type { components, paths } from './schema.ts';

/**
 * A typed client for /v1: types generated from /v1/openapi.json (`npm run client:generate`),
 * requests through openapi-fetch, and one middleware that authenticates each request
 * (session token, or an Ed25519-signed API-key request), corrects for clock skew and
 * retries quota refusals. Runs in Node 20+ and browsers (fetch, WebCrypto).
 */

export type { components, paths };
export type Problem = components['schemas']['Problem'];
export type SpotClient = Client<paths>;

export interface ApiKeyCredentials {
  keyId: string;
  /** The key's 32-byte Ed25519 seed (private key); only its public key is ever sent. */
  seed: Uint8Array;
}

export interface SpotClientOptions {
  baseUrl: string;
  sessionToken?: string;
  apiKey?: ApiKeyCredentials;
  /** Further 429 answers retried with the same request; 0 turns retries off. */
  maxRetries?: number;
  /** Largest random delay added to `retry_after_ms`, so refused clients do not return together. */
  maxJitterMs?: number;
  fetch?: typeof globalThis.fetch;
  /** The local clock (ms since the epoch); the server's is this plus the learned offset. */
  now?: () => number;
  /** Extra headers on every request (e.g. X-Request-Id). */
  headers?: Record<string, string>;
}

export function createSpotClient(options: SpotClientOptions): SpotClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  client.use(authMiddleware(options));
  return client;
}

/** The exact text a signature covers: `timestamp\nMETHOD\npathWithQuery\nbody`. */
export function signingMessage(timestamp: string, method: string, pathWithQuery: string, body: string): string {
  return `${timestamp}\n${method}\n${pathWithQuery}\n${body}`;
}

export async function signatureHeaders(key: ApiKeyCredentials, method: string, pathWithQuery: string, body: string, nowMs: number) {
  const timestamp = String(Math.round(nowMs));
  const signature = await ed.signAsync(new TextEncoder().encode(signingMessage(timestamp, method, pathWithQuery, body)), key.seed);
  return { 'X-API-KEY-ID': key.keyId, 'X-API-TIMESTAMP': timestamp, 'X-API-SIGNATURE': toBase64(signature) };
}

/**
 * Authenticates, then answers two refusals itself:
 * - 401 TIMESTAMP_OUT_OF_WINDOW: the body's `serverTimeMs` gives the clock offset, the request
 *   is signed again with it (once), and later requests use it too;
 * - 429: waits `retry_after_ms` (else Retry-After) plus jitter and sends the same request
 *   again (spec 7 rule 4), freshly signed since a signature is single use.
 * Anything else, a 503 included, is returned as is: its outcome is unknown and the caller
 * reconciles (see reconcileOrder) rather than resending.
 */
export function authMiddleware(options: SpotClientOptions): Middleware {
  const maxRetries = options.maxRetries ?? 3;
  const maxJitterMs = options.maxJitterMs ?? 250;
  const send = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  let clockOffsetMs = 0;
  const bodies = new WeakMap<Request, string>();

  async function authenticated(request: Request, body: string): Promise<Request> {
    const headers = new Headers(request.headers);
    if (options.apiKey) {
      const url = new URL(request.url);
      const signed = await signatureHeaders(options.apiKey, request.method, url.pathname + url.search, body, now() + clockOffsetMs);
      for (const [name, value] of Object.entries(signed)) headers.set(name, value);
    } else if (options.sessionToken) {
      headers.set('Authorization', `Bearer ${options.sessionToken}`);
    }
    const out = new Request(request.url, { method: request.method, headers, ...(body !== '' ? { body } : {}), signal: request.signal });
    bodies.set(out, body);
    return out;
  }

  return {
    async onRequest({ request }) {
      const body = request.body ? await request.clone().text() : '';
      return authenticated(request, body);
    },
    async onResponse({ request, response }) {
      const body = bodies.get(request) ?? '';
      let current = response;
      let skewCorrected = false;
      for (let retries = 0; ; ) {
        if (current.status === 401 && options.apiKey && !skewCorrected) {
          const problem = (await current.clone().json().catch(() => undefined)) as { code?: string; serverTimeMs?: string } | undefined;
          if (problem?.code !== 'TIMESTAMP_OUT_OF_WINDOW' || problem.serverTimeMs === undefined) return current;
          clockOffsetMs = Number(problem.serverTimeMs) - now();
          skewCorrected = true;
        } else if (current.status === 429 && retries < maxRetries) {
          retries += 1;
          await sleep(retryDelayMs(await current.clone().json().catch(() => undefined), current.headers) + Math.random() * maxJitterMs);
        } else {
          return current;
        }
        current = await send(await authenticated(request, body));
      }
    },
  };
}

/** `rate_limit.retry_after_ms` when present, else Retry-After (seconds), else one second. */
export function retryDelayMs(problem: unknown, headers: Headers): number {
  const ms = Number((problem as { rate_limit?: { retry_after_ms?: string } } | undefined)?.rate_limit?.retry_after_ms);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const seconds = Number(headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000;
}

/** Spec 2.7, as GET /v1/orders/{orderId} answers it. */
export type Order = paths['/v1/orders/{orderId}']['get']['responses'][200]['content']['application/json']['order'];

export type Reconciled =
  | { outcome: 'found'; order: Order }
  /** Not found after every look-up: still not proof the order was refused (spec 4.5 rule 3). */
  | { outcome: 'unknown' };

/**
 * After an ambiguous outcome (timeout, network error, 503), looks the order up by its client
 * order id instead of resending it (spec 4.5 rule 3, 7 rule 3). A miss is retried a few
 * times, since an accepted order can take a moment to become readable.
 */
export async function reconcileOrder(
  client: SpotClient,
  clientOrderId: string,
  options: { subaccountId?: string; attempts?: number; delayMs?: number } = {},
): Promise<Reconciled> {
  const attempts = options.attempts ?? 5;
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await sleep(options.delayMs ?? 200);
    const { data, response } = await client.GET('/v1/orders/by-client-order-id/{clientOrderId}', {
      params: { path: { clientOrderId }, query: options.subaccountId ? { subaccountId: options.subaccountId } : {} },
    });
    if (data) return { outcome: 'found', order: data.order };
    if (response.status !== 404 && response.status !== 503) throw new Error(`reconcile ${clientOrderId}: HTTP ${response.status}`);
  }
  return { outcome: 'unknown' };
}

type CreateOrderBody = paths['/v1/orders']['post']['requestBody']['content']['application/json'];

/**
 * Places an order that carries a client order id; when the answer is ambiguous (the request
 * failed in transit, or 503), reconciles by that id rather than placing it again.
 */
export async function placeOrder(client: SpotClient, body: CreateOrderBody & { order: { clientOrderId: string } }) {
  const lookup = body.subaccountId ? { subaccountId: body.subaccountId } : {};
  try {
    const result = await client.POST('/v1/orders', { body });
    if (result.response.status !== 503) return { ...result, reconciled: undefined };
    return { ...result, reconciled: await reconcileOrder(client, body.order.clientOrderId, lookup) };
  } catch {
    return { data: undefined, error: undefined, response: undefined, reconciled: await reconcileOrder(client, body.order.clientOrderId, lookup) };
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
