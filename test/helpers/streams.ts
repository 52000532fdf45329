import WebSocket from 'ws';
import type { App } from '../../src/app.ts';
import { publicationListeners } from '../../src/services/publications.ts';

/**
 * Subscriptions holding the server's resources: each one's own event listener, and each
 * graphql-ws subscription on a shared public selection (whose execution holds the one
 * listener of all its sockets, not counted again).
 */
export function subscriptionsHeld(app: App): number {
  const { selections, sinks } = app.shared.stats;
  return publicationListeners(app.store.events) - selections + sinks;
}

/** A graphql-ws socket spoken by hand, so a test controls when it reads, completes or drops. */
export interface RawSocket {
  ws: WebSocket;
  /** Every message received, parsed, in order. */
  messages: { id?: string; type: string; payload?: unknown }[];
  subscribe(id: string, query: string, variables?: Record<string, unknown>): void;
  complete(id: string): void;
  closed: Promise<{ code: number; reason: string }>;
}

export async function rawSocket(baseUrl: string, connectionParams: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<RawSocket> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers });
  const messages: RawSocket['messages'] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  ws.on('error', () => undefined);
  const acked = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as RawSocket['messages'][number];
      messages.push(m);
      if (m.type === 'connection_ack') resolve();
    });
    void closed.then((c) => reject(Object.assign(new Error(`closed ${c.code} ${c.reason}`), c)));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused ${res.statusCode}`), { status: res.statusCode, response: res })));
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'connection_init', payload: connectionParams }));
  await acked;
  return {
    ws,
    messages,
    closed,
    subscribe: (id, query, variables) => ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query, ...(variables ? { variables } : {}) } })),
    complete: (id) => ws.send(JSON.stringify({ id, type: 'complete' })),
  };
}

/** A subscription over server-sent events; `text` grows as the response is read. */
export async function sseSubscription(baseUrl: string, query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>) {
  const abort = new AbortController();
  const body = JSON.stringify({ query, ...(variables ? { variables } : {}) });
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body,
    signal: abort.signal,
  });
  const state = { status: res.status, text: '', ended: false, res };
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) state.text += decoder.decode(chunk, { stream: true });
    } catch {
      // Aborted by the test.
    }
    state.ended = true;
  })();
  return {
    state,
    async abort() {
      abort.abort();
      await reading;
    },
    reading,
  };
}
