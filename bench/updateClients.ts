import { createClient } from 'graphql-ws';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';

/**
 * The web UI's side of bench/ack-to-update.bench.ts, in a process of its own: opens
 * BENCH_SUBSCRIBERS graphql-ws sockets (sessions from BENCH_TOKENS, round robin); the first
 * socket of each session subscribes to its account's orderUpdates, and every socket to
 * BTC-USDC's publicTrades when BENCH_PUBLIC_TRADES=1. Notes when each order's first update
 * arrives (epoch ms). Sends "ready" over IPC once connected, and its notes when asked.
 */
const url = process.env.BENCH_URL as string;
const tokens = (process.env.BENCH_TOKENS as string).split(',');
const n = Number(process.env.BENCH_SUBSCRIBERS);
const now = () => performance.timeOrigin + performance.now();
const first = new Map<string, number>();
const last = new Map<string, number>();
/** Per socket, the orders it has had an update of: only each order's first update counts. */
const seen = (mine: Set<string>, orderId: string) => {
  if (mine.has(orderId)) return;
  mine.add(orderId);
  const t = now();
  if (!first.has(orderId)) first.set(orderId, t);
  last.set(orderId, t);
};
let trades = 0;
await Promise.all(
  Array.from({ length: n }, (_, i) => {
    const client = createClient({ url: `${url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, connectionParams: { authorization: `Bearer ${tokens[i % tokens.length]}` } });
    return new Promise<void>((resolve, reject) => {
      client.on('connected', () => resolve());
      client.on('closed', () => reject(new Error('socket closed')));
      const mine = new Set<string>();
      if (i < tokens.length) client.subscribe<{ orderUpdates: { orderId: string } }>(
        { query: 'subscription { orderUpdates { orderId status version } }' },
        { next: (m) => m.data && seen(mine, m.data.orderUpdates.orderId), error: () => undefined, complete: () => undefined },
      );
      if (process.env.BENCH_PUBLIC_TRADES === '1') client.subscribe({ query: 'subscription { publicTrades(symbol: "BTC-USDC") { matchId price } }' }, { next: () => void trades++, error: () => undefined, complete: () => undefined });
    });
  }),
);
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
process.send?.({ ready: n });
process.on('message', () => {
  process.send?.({ first: [...first], last: [...last], trades, loopP99: loop.percentile(99) / 1e6 });
});
