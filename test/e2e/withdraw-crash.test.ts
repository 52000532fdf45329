import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { api, onboard } from '../helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.ts';
import { keyFor } from '../helpers/rooms.ts';
import { RestartableService } from '../helpers/serviceProcess.ts';
import { balancesOf, credit, ledgerViolations, SOUND_LEDGER } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';
import { liftKey, payload, withdrawWithKey } from '../helpers/withdraw.ts';

/**
 * Issue 14: withdrawals survive SIGKILL. The real process is killed the moment five
 * withdrawals are acknowledged, and again and again while they are validated and confirm:
 * no intent and no hold is lost, every flow resumes, and each is settled exactly once.
 */
const service = new RestartableService('wdkill', { redisUrl: TEST_REDIS_URL, env: { CHAIN_BLOCK_MS: '20' } });
afterAll(() => service.dispose());
const schema = service.schema;

describe('SIGKILL between submission and completion', () => {
  it('keeps every intent and hold, resumes every flow, and settles each exactly once', async () => {
    let running = await service.start();
    const url = running.url;
    const me = await onboard(url);
    await credit(url, me.rootAccountId, 'USDC', '1000');
    const key = await keyFor(url, me, ['WITHDRAW', 'READ']);
    await liftKey(url, key.keyId);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => withdrawWithKey(url, key, payload({ action: 'TO_EXTERNAL_CHAIN', amount: (10n * 10n ** 18n).toString(), assetId: 4, destinationChainId: '56', destinationAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    // Killed the moment they are acknowledged: the journal holds them, projected or not.
    running.kill();
    running = await service.start();
    expect((await balancesOf(url, me))['TRADING:USDC']).toEqual({ available: '948.5', held: '51.5' });
    const ids = answers.map((a) => a.body.intentId as string).sort();
    const listed = (await api(url, 'GET', '/v1/chain/flows', undefined, me.auth)).body.flows as { flowId: string }[];
    expect(listed.map((f) => f.flowId).sort()).toEqual(ids);
    for (let k = 0; k < 4; k++) {
      await new Promise((r) => setTimeout(r, 400 + k * 300));
      running.kill();
      running = await service.start();
    }
    await pollUntil(async () => ((await api(url, 'GET', '/v1/chain/flows?scope=TERMINAL', undefined, me.auth)).body.flows as unknown[]).length === 5, 90_000, 200);
    const flows = (await api(url, 'GET', '/v1/chain/flows', undefined, me.auth)).body.flows as { flowState: string; requestFee: { status: string } }[];
    expect(flows.map((f) => [f.flowState, f.requestFee.status])).toEqual(Array(5).fill(['COMPLETED', 'SETTLED']));
    expect((await balancesOf(url, me))['TRADING:USDC']).toEqual({ available: '948.5', held: '0' });
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${schema}"` });
    await client.connect();
    try {
      const settled = await client.query<{ code: string; n: number }>(`SELECT "transferCode"::text AS code, count(*)::int AS n FROM "LedgerTransfer" WHERE "flowId" IS NOT NULL GROUP BY 1 ORDER BY 1`);
      expect(settled.rows).toEqual([{ code: 'WITHDRAW', n: 5 }, { code: 'WITHDRAW_FEE', n: 5 }]);
      const intents = await client.query<{ status: string; n: number }>(`SELECT status::text, count(*)::int AS n FROM "WithdrawIntent" GROUP BY 1`);
      expect(intents.rows).toEqual([{ status: 'COMPLETED', n: 5 }]);
      expect(await ledgerViolations(async (text) => (await client.query(text)).rows)).toEqual(SOUND_LEDGER);
    } finally {
      await client.end();
    }
    running.kill();
  }, 240_000);
});
