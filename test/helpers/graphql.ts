import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { TypedDocumentString } from '../generated/graphql/graphql.ts';
import { signHeaders, type ClientKey, type SignOptions } from './auth.ts';

export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** Sends a codegen'd document over HTTP POST, typed by its result and variables. */
export async function gql<R, V>(
  baseUrl: string,
  document: TypedDocumentString<R, V>,
  variables?: V,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: GraphQLResponse<R>; headers: Headers }> {
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query: document.toString(), variables }),
  });
  return { status: res.status, body: (await res.json()) as GraphQLResponse<R>, headers: res.headers };
}

/** A graphql-ws client over a real WebSocket to the server's /graphql. */
export function wsClient(baseUrl: string, connectionParams?: Record<string, unknown>): Client {
  return createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    ...(connectionParams ? { connectionParams } : {}),
  });
}

/** Collects `n` results of a subscription document. */
export async function collect<R, V>(client: Client, document: TypedDocumentString<R, V>, variables: V, n: number) {
  const out: GraphQLResponse<R>[] = [];
  const iterator = client.iterate({ query: document.toString(), variables: variables as Record<string, unknown> });
  for await (const result of iterator) {
    out.push(result as GraphQLResponse<R>);
    if (out.length >= n) break;
  }
  return out;
}

/** `connectionParams` of an API key: the three headers, signed over the upgrade request (GET /graphql, no body). */
export function apiKeyConnectionParams(key: ClientKey, options: SignOptions = {}): Record<string, string> {
  return signHeaders(key, 'GET', '/graphql', '', options);
}
