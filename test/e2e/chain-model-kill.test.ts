import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainModel, KILL_EXAMPLE, runModel, type Target } from '../helpers/chainModel.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.ts';
import { RestartableService, type ServiceProcess } from '../helpers/serviceProcess.ts';
import { projected } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 26: the chain model (test/helpers/chainModel.ts) over src/main.ts as a child
 * process, SIGKILLed at its restart steps: idle, racing a deposit's report (or its credit,
 * about 12 blocks later), a deposit's drop, or a withdrawal's acceptance. What a killed
 * process acknowledged must be there after the start, and every invariant holds across the
 * kills. The server's clock is the real one: finality would be a wait of the whole lock,
 * so these runs leave it to time. Fewer steps than the in-process model (a start costs
 * seconds): CHAIN_MODEL_RUNS (default 2, the first the fixed example) and
 * CHAIN_MODEL_KILL_STEPS (at most, default 6) make a long run.
 */
const RUNS = Number(process.env.CHAIN_MODEL_RUNS ?? 2);
const STEPS = Number(process.env.CHAIN_MODEL_KILL_STEPS ?? 6);
const BLOCK_MS = 100;

const service = new RestartableService('chainkill', { redisUrl: TEST_REDIS_URL, env: { CHAIN_BLOCK_MS: String(BLOCK_MS) } });
let running: ServiceProcess;
let pool: pg.Pool;
beforeAll(async () => {
  running = await service.start();
  pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${service.schema}"`, max: 4 });
});
afterAll(async () => {
  await pool?.end();
  await service.dispose();
});

const query = async <T>(text: string, values?: unknown[]) => (await pool.query(text, values)).rows as T[];
const target: Target = {
  url: () => running.url,
  query,
  // The journal holds every acknowledged job; the projection's watermark says the tables hold it too.
  caughtUp: () => projected(query, 10_000),
  now: () => Date.now(),
  finality: (lockMs) => new Promise((r) => setTimeout(r, lockMs)),
  async stop() {
    running.kill();
    // The next process listens on the same port: this one must be gone first.
    await pollUntil(() => !running.running, 10_000);
  },
  async start() {
    running = await service.start();
  },
};

describe('chain flows as a model, SIGKILLed', () => {
  it('keeps every acknowledged step, deposit, hold and lock exact across kills', async () => {
    const weights = { deposit: 3, dropDeposit: 1, toTrading: 2, external: 3, toY: 1, yOut: 1, tradeOut: 2, reject: 1, dropWithdraw: 1, cancel: 1, finality: 0, wait: 1, restart: 2 };
    const { counts, steps } = await runModel(new ChainModel(target, BLOCK_MS), { runs: RUNS, steps: STEPS, weights, example: KILL_EXAMPLE });
    console.info(`chain model, SIGKILL: ${RUNS} runs, ${steps} steps`, counts);
    expect(Object.keys(counts).filter((k) => k.endsWith(' accepted'))).not.toEqual([]);
    expect(counts['lock bound'] ?? 0).toBeGreaterThan(0);
    expect(Object.keys(counts).filter((k) => k.startsWith('restart '))).not.toEqual([]);
  }, Math.max(600_000, RUNS * STEPS * 8_000));
});
