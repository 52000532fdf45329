import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../helpers/env.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { placeOrder, trader } from '../helpers/trading.ts';

/**
 * Trading's events stay in the engine's process (issue 29): its subscribers get every event,
 * and nothing of them is published to Redis, where no other process could use it.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('trading topics', () => {
  it('reach this process’s subscribers and never Redis', async () => {
    const { store } = server.app;
    const spy = new Redis(TEST_REDIS_URL);
    const seen: string[] = [];
    spy.on('pmessage', (_pattern: string, channel: string) => seen.push(channel.slice(store.keyPrefix.length)));
    await spy.psubscribe(`${store.keyPrefix}*`);
    const trades = server.app.services.orders.subscribeMarket('BTC-USDC', 'trades');
    const book = server.app.services.orders.subscribeMarket('BTC-USDC', 'book');
    try {
      const seller = await trader(server.url, { BTC: '1' });
      const buyer = await trader(server.url, { USDC: '100000' });
      expect((await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.1', limitGtc: { price: '30000' } })).status).toBe(200);
      expect((await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.1', limitGtc: { price: '30000' } })).status).toBe(200);
      expect((await trades.next()).value).toMatchObject({ symbol: 'BTC-USDC', takerSide: 'BUY' });
      expect((await book.next()).value).toMatchObject({ symbol: 'BTC-USDC' });
      // A topic that does cross processes, published after the trading events on the same
      // connection: once it reached the spy, any trading message sent before it would have.
      store.events.dispatchEvent(new CustomEvent(`${store.keyPrefix}control`, { detail: 1 }));
      const deadline = Date.now() + 5_000;
      while (!seen.includes('control') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toContain('control');
      expect(seen.filter((c) => /^(orders|fills|triggers|balances|book|trades):/.test(c))).toEqual([]);
    } finally {
      await trades.return?.();
      await book.return?.();
      spy.disconnect();
    }
  });
});
