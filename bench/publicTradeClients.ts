import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * The sockets of bench/shared-subscriptions.bench.ts, in a process of their own: opens
 * BENCH_SOCKETS anonymous graphql-ws sockets to BENCH_URL, each on BTC-USDC's publicTrades
 * with the same selection (with BENCH_DISTINCT_SELECTIONS=1, each under an alias of its own,
 * so that none shares an execution: the cost before issue 29); sends "ready" over IPC once
 * every subscription is started, and, when asked, how many trade frames the sockets have
 * received.
 */
const url = process.env.BENCH_URL as string;
const n = Number(process.env.BENCH_SOCKETS);
const distinct = process.env.BENCH_DISTINCT_SELECTIONS === '1';
const query = (i: number) => `subscription { ${distinct ? `t${i}: ` : ''}publicTrades(symbol: "BTC-USDC") { matchId price qty takerSide executedAt } }`;
let frames = 0;
let errors = 0;
await Promise.all(
  Array.from({ length: n }, (_, i) => {
    const client = createClient({ url: `${url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
    return new Promise<void>((resolve, reject) => {
      client.on('connected', () => resolve());
      client.on('closed', () => reject(new Error('socket closed')));
      client.subscribe({ query: query(i) }, { next: () => void frames++, error: () => void errors++, complete: () => undefined });
    });
  }),
);
process.send?.({ ready: n });
process.on('message', () => process.send?.({ frames, errors }));
