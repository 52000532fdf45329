import { Pool } from 'undici';
import { startTestApp } from '../test/helpers/infra.ts';
import { trader } from '../test/helpers/trading.ts';
import type { SignedIn } from '../test/helpers/auth.ts';
import { validateTrigger } from '../src/services/trading/triggerInput.ts';
import type { Market } from '../src/services/markets.ts';

const TRIGGERS = Number(process.env.BENCH_TRIGGERS ?? 100_000);
const SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 5);
const CONCURRENCY = 32;

/**
 * Issue 13: order entry (signed-in POST /v1/orders, crossing limit orders on BTC-USDC) with
 * BENCH_TRIGGERS armed stop-losses resting away from the price, against the same server
 * with none, in the same run: without, with, and without again (after canceling them), so
 * drift falls on both sides. A trade looks its crossed triggers up by binary search in the
 * symbol's price-sorted lists, so resting triggers should cost next to nothing.
 */
export async function run(): Promise<string> {
  const server = await startTestApp({ env: { LOG_LEVEL: 'silent', MAX_LIVE_TRIGGERS_PER_ACCOUNT: String(TRIGGERS) } });
  const pool = new Pool(server.url, { connections: CONCURRENCY });
  try {
    const buyer = await trader(server.url, { USDC: '100000000' });
    const seller = await trader(server.url, { BTC: '100000' });
    const stage = async (label: string) => {
      let ok = 0;
      let n = 0;
      const until = performance.now() + SECONDS * 1000;
      const worker = async () => {
        while (performance.now() < until) {
          const i = n++;
          const who: SignedIn = i % 2 === 0 ? buyer : seller;
          const body = JSON.stringify({ order: { symbol: 'BTC-USDC', side: i % 2 === 0 ? 'BUY' : 'SELL', baseQty: '0.001', limitGtc: { price: '30000' } } });
          const res = await pool.request({ method: 'POST', path: '/v1/orders', headers: { 'content-type': 'application/json', ...who.auth }, body });
          await res.body.dump();
          if (res.statusCode === 200) ok++;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      return { label, rate: ok / SECONDS };
    };
    await stage('warm-up');
    const before = await stage('no triggers');

    // The triggers' owner, and its stops: SELL stop-losses far below the price, spread over many prices.
    const owner = await trader(server.url, { BTC: String(TRIGGERS) });
    const services = server.app.services;
    const account = await services.orders.engine.readable().then(() => server.database.prisma.account.findUniqueOrThrow({ where: { publicId: owner.rootAccountId } }));
    const market = services.markets.market('BTC-USDC') as Market;
    const started = performance.now();
    const ids: bigint[] = [];
    for (let i = 0; i < TRIGGERS; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, TRIGGERS - i) }, (_, k) => {
        const spec = validateTrigger({ trigger: { symbol: 'BTC-USDC', qty: '0.001', stopLoss: { side: 'SELL', triggerPrice: String(10_000 + ((i + k) % 10_000)), child: { marketIoc: {} } } } }, market, BigInt(Date.now()) * 1_000_000n);
        return services.orders.engine.createTrigger({ id: account.id, publicId: account.publicId }, market, spec);
      });
      for (const r of await Promise.all(batch)) ids.push(r.row.id);
    }
    const createSeconds = (performance.now() - started) / 1000;
    // Let the projection of 100,000 triggers and their events finish first: it is not order entry's cost.
    const settled = async () => {
      for (;;) if (await services.orders.engine.readable().then(() => true, () => false)) return;
    };
    await settled();
    const loaded = await stage(`${TRIGGERS.toLocaleString('en-US')} armed triggers`);

    for (let i = 0; i < ids.length; i += 1000) await Promise.all(ids.slice(i, i + 1000).map((id) => services.orders.engine.cancelTrigger(account.id, id)));
    await settled();
    const after = await stage('no triggers, again');
    const baseline = (before.rate + after.rate) / 2;
    const row = (s: { label: string; rate: number }) => `| ${s.label} | ${Math.round(s.rate).toLocaleString('en-US')} | ${(s.rate / baseline).toFixed(3)} |`;
    return [
      '### Order entry with armed triggers resting away from the price (bench/triggers.bench.ts)',
      '',
      `The service in process on PostgreSQL and Redis; ${CONCURRENCY} closed-loop HTTP clients (session auth) send crossing limit orders on BTC-USDC for ${SECONDS} s per stage. Then ${TRIGGERS.toLocaleString('en-US')} SELL stop-losses at 10,000 to 19,999 (the price is 30,000) are created through the engine (${createSeconds.toFixed(1)} s, ${Math.round(TRIGGERS / createSeconds).toLocaleString('en-US')}/s), and canceled before the last stage; each stage starts once the projection has caught up. Baseline: the mean of the two stages without triggers.`,
      '',
      '| stage | orders/s | ratio to baseline |',
      '|---|---:|---:|',
      row(before),
      row(loaded),
      row(after),
      '',
      `With ${TRIGGERS.toLocaleString('en-US')} armed triggers: ${((loaded.rate / baseline) * 100).toFixed(0)}% of the baseline's throughput (target: at least 90%).`,
    ].join('\n');
  } finally {
    await pool.close();
    await server.close();
  }
}
