import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.ts';
import { dropSchema, uniqueName } from '../helpers/infra.ts';
import { freePort } from '../helpers/redisServer.ts';
import { ServiceProcess } from '../helpers/serviceProcess.ts';
import { ledgerViolations, placeOrder, SOUND_LEDGER, trader } from '../helpers/trading.ts';

/**
 * Issue 13: a trigger fires at most once and its child is created exactly once per firing,
 * whatever moment the server dies at. The real process is SIGKILLed right after the order
 * whose trade crosses a stop was sent (before, while or after it is answered), in a loop,
 * and restarted each time.
 */
const schema = uniqueName('trigkill');
const processes: ServiceProcess[] = [];
afterAll(async () => {
  for (const p of processes) p.kill();
  await dropSchema(schema);
});

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${schema}"` });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('SIGKILL around a trigger firing', () => {
  it('never fires a trigger twice nor creates its child twice, and leaves the ledger sound', async () => {
    const port = await freePort();
    const start = () => {
      const p = ServiceProcess.start({ port, schema, redisUrl: TEST_REDIS_URL });
      processes.push(p);
      return p.ready();
    };
    let service = await start();
    const url = service.url;
    const maker = await trader(url, { BTC: '1' });
    const taker = await trader(url, { USDC: '1000000' });
    expect((await placeOrder(url, maker, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', limitGtc: { price: '30000' } })).status).toBe(200);
    expect((await placeOrder(url, taker, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitIoc: { price: '30000' } })).status).toBe(200);

    // Six stops, one per round, each crossed by that round's trade only.
    const owner = await trader(url, { BTC: '1' });
    const ROUNDS = 6;
    const stops: string[] = [];
    for (let k = 0; k < ROUNDS; k++) {
      const r = await api(url, 'POST', '/v1/triggers', { trigger: { symbol: 'BTC-USDC', qty: '0.01', stopLoss: { side: 'SELL', triggerPrice: String(29_900 - k * 100), child: { marketIoc: { maxSlippageBps: 1000 } } } } }, owner.auth);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      stops.push(r.body.triggerId);
    }
    // Bids to trade against: one per round's price, and depth below for the children.
    const bidder = await trader(url, { USDC: '1000000' });
    for (let k = 0; k < ROUNDS; k++) expect((await placeOrder(url, bidder, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitGtc: { price: String(29_900 - k * 100) } })).status).toBe(200);
    expect((await placeOrder(url, bidder, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '1', limitGtc: { price: '28000' } })).status).toBe(200);
    const seller = await trader(url, { BTC: '1' });

    for (let k = 0; k < ROUNDS; k++) {
      const price = String(29_900 - k * 100);
      // Sent, then the process dies a few milliseconds later: before, during or after the commit.
      const sent = placeOrder(url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.001', limitIoc: { price } }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, k * 4));
      service.kill();
      await sent;
      service = await start();
    }
    // Whatever was not fired before a kill fires when its price prints again, once.
    for (let k = 0; k < ROUNDS; k++) await placeOrder(url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.001', limitIoc: { price: '28000' } });

    const fired = await sql<{ publicId: string; status: string; fires: number; children: number }>(
      `SELECT t."publicId", t.status::text AS status,
         (SELECT count(*)::int FROM "TriggerEvent" e WHERE e."triggerId" = t.id AND e."eventType" = 'FIRED') AS fires,
         (SELECT count(*)::int FROM "Order" o WHERE o."originTriggerId" = t.id) AS children
       FROM "Trigger" t ORDER BY t.id`,
    );
    expect(fired.map((t) => t.publicId)).toEqual(stops);
    for (const t of fired) expect({ status: t.status, fires: t.fires, children: t.children }).toEqual({ status: 'COMPLETED', fires: 1, children: 1 });
    expect(await ledgerViolations((text) => sql(text))).toEqual(SOUND_LEDGER);
    service.kill();
  }, 240_000);
});
