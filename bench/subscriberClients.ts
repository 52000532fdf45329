import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * Opens BENCH_SUBSCRIBERS graphql-ws sockets to BENCH_URL (sessions from BENCH_TOKENS,
 * comma-separated), each with an orderUpdates subscription, prints "ready" and stays until
 * killed. A process of its own, so the sockets' work never stalls the load generator.
 */
const url = process.env.BENCH_URL as string;
const tokens = (process.env.BENCH_TOKENS as string).split(',');
const n = Number(process.env.BENCH_SUBSCRIBERS);
let connected = 0;
await Promise.all(
  Array.from({ length: n }, (_, i) => {
    const client = createClient({ url: `${url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, connectionParams: { authorization: `Bearer ${tokens[i % tokens.length]}` } });
    return new Promise<void>((resolve, reject) => {
      client.on('connected', () => {
        connected++;
        resolve();
      });
      client.on('closed', () => reject(new Error('socket closed')));
      client.subscribe({ query: 'subscription { orderUpdates { orderId } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
    });
  }),
);
console.log(`ready ${connected}`);
