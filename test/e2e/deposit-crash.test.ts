import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { api, onboard } from '../helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.ts';
import { TEST_OPERATOR_TOKEN } from '../helpers/infra.ts';
import { RestartableService } from '../helpers/serviceProcess.ts';
import { balancesOf, ledgerViolations, SOUND_LEDGER } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 14: deposits survive SIGKILL. The real process is killed while deposits are
 * confirming, again and again; after each restart they go on from the confirmations they
 * had, and each is credited exactly once.
 */
const service = new RestartableService('depkill', { redisUrl: TEST_REDIS_URL, env: { CHAIN_BLOCK_MS: '20' } });
afterAll(() => service.dispose());
const schema = service.schema;

describe('SIGKILL while deposits confirm', () => {
  it('resumes every deposit after a restart and credits each exactly once', async () => {
    let running = await service.start();
    const url = running.url;
    const me = await onboard(url);
    const address = (await api(url, 'POST', '/v1/chain/deposit-addresses', { chainId: 1 }, me.auth)).body.depositAddress.depositAddress;
    const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
    for (let i = 0; i < 5; i++) {
      const r = await api(url, 'POST', '/operator/v1/chain/deposits', { chainId: 1, address, asset: 'USDC', amount: '10', txHash: `0xkill${i}` }, operator);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    for (let k = 0; k < 4; k++) {
      await new Promise((r) => setTimeout(r, 150 + k * 200));
      running.kill();
      running = await service.start();
    }
    await pollUntil(async () => {
      const flows = (await api(url, 'GET', '/v1/chain/flows?scope=TERMINAL', undefined, me.auth)).body.flows as unknown[];
      return flows.length === 5;
    }, 60_000, 200);
    const flows = (await api(url, 'GET', '/v1/chain/flows', undefined, me.auth)).body.flows as { flowState: string }[];
    expect(flows.map((f) => f.flowState)).toEqual(Array(5).fill('COMPLETED'));
    expect((await balancesOf(url, me))['FUNDING:USDC']).toEqual({ available: '50', held: '0' });
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${schema}"` });
    await client.connect();
    try {
      const credits = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "LedgerTransfer" WHERE "flowId" IS NOT NULL`);
      expect(credits.rows[0]?.n).toBe(5);
      expect(await ledgerViolations(async (text) => (await client.query(text)).rows)).toEqual(SOUND_LEDGER);
    } finally {
      await client.end();
    }
    running.kill();
  }, 180_000);
});
