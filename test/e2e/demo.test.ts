import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../helpers/auth.ts';
import { tempDir } from '../helpers/infra.ts';
import { keyFor } from '../helpers/rooms.ts';
import { payload, withdrawWithKey } from '../helpers/withdraw.ts';
import { ServiceProcess } from '../helpers/serviceProcess.ts';

/**
 * The newcomer's path of the README: `npm start` on the embedded defaults (no DATABASE_URL,
 * REDIS_URL or OPERATOR_TOKEN) in one shell, `npm run demo` in another.
 */
const run = promisify(execFile);
let server: ServiceProcess;
let data: Awaited<ReturnType<typeof tempDir>>;
let port: number;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port: p } = srv.address() as { port: number };
      srv.close(() => resolve(p));
    });
    srv.on('error', reject);
  });
}

const embedded = (dir: string) => ({
  DATABASE_URL: '',
  DATABASE_SCHEMA: '',
  REDIS_URL: '',
  OPERATOR_TOKEN: '',
  TRUST_PROXY: '',
  NODE_ENV: 'development',
  LOG_LEVEL: 'info',
  DATA_DIR: dir,
});

beforeAll(async () => {
  data = await tempDir('sx-demo-');
  port = await freePort();
  server = ServiceProcess.start({ port, schema: 'unused', redisUrl: 'redis://unused', env: embedded(data.dir) });
  await server.listening(120_000);
}, 150_000);
afterAll(async () => {
  await server?.stop();
  await data?.remove();
});

describe('npm start, then npm run demo', () => {
  it('start-up names the URLs, the embedded database, the shared store and the local operator token', async () => {
    const banner = server.stderr.join('');
    for (const line of ['/v1', '/docs', '/graphql', '/collab', 'embedded PGlite', 'in-process stand-in', path.join(data.dir, 'operator.token')]) {
      expect(banner).toContain(line);
    }
    const token = path.join(data.dir, 'operator.token');
    expect((await readFile(token, 'utf8')).trim().length).toBeGreaterThanOrEqual(16);
    expect((await stat(token)).mode & 0o077).toBe(0);
  });

  it('the demo trades between two fresh wallets over signed /v1 requests and shows the subscription events, exit 0', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: data.dir, OPERATOR_TOKEN: '' },
      timeout: 120_000,
    });
    expect(stdout).toMatch(/seller: wallet 0x[0-9a-fA-F]{40}, account \S+, API key ak_/);
    expect(stdout).toMatch(/subscription: order \S+ is NEW/);
    expect(stdout).toMatch(/subscription: order \S+ is FILLED/);
    expect(stdout).toMatch(/seller: fill #\S+ SELL 1\.5 ETH-USDC at 2500/);
    expect(stdout).toMatch(/buyer: fill #\S+ BUY 1\.5 ETH-USDC at 2500/);
    expect(stdout).toContain('buyer: TRADING ETH available 1.5');
    expect(stdout).toContain('demo finished');
  }, 150_000);

  it('on the embedded database too, a withdrawal holds its funds with its intent and flow, and moves to Funding at once', async () => {
    const url = `http://127.0.0.1:${port}`;
    // Signed in as a newcomer would: the operator token of this run is the embedded one, so no quota is lifted.
    const me = await signIn(url);
    const terms = await api(url, 'GET', '/v1/auth/terms', undefined, me.auth);
    expect((await api(url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, me.auth)).status).toBe(200);
    const token = (await readFile(path.join(data.dir, 'operator.token'), 'utf8')).trim();
    const credited = await api(url, 'POST', '/operator/v1/credits', { accountId: me.rootAccountId, asset: 'USDC', amount: '100', ledgerAccount: 'TRADING' }, { authorization: `Bearer ${token}` });
    expect(credited.status).toBe(200);
    const key = await keyFor(url, me, ['WITHDRAW', 'READ']);
    const out = await withdrawWithKey(url, key, payload({ action: 'TO_EXTERNAL_CHAIN', amount: (10n * 10n ** 18n).toString(), assetId: 4, destinationChainId: '8453', destinationAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }));
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    const home = await withdrawWithKey(url, key, payload({ action: 'TO_FUNDING', amount: (5n * 10n ** 18n).toString(), assetId: 4 }));
    expect(home.status, JSON.stringify(home.body)).toBe(200);
    const balances = (await api(url, 'GET', '/v1/balances', undefined, me.auth)).body.balances as { ledgerAccount: string; available: string; held: string }[];
    expect(balances.map((b) => [b.ledgerAccount, b.available, b.held]).sort()).toEqual([['FUNDING', '5', '0'], ['TRADING', '84.9', '10.1']]);
    const flows = (await api(url, 'GET', '/v1/chain/flows', undefined, me.auth)).body.flows as { flowId: string; flowState: string }[];
    expect(flows.map((f) => [f.flowId, f.flowState]).sort()).toEqual([[out.body.intentId, 'PENDING_VALIDATION'], [home.body.intentId, 'COMPLETED']].sort());
  }, 60_000);
});

describe('the local operator token', () => {
  it('is never made in production mode', async () => {
    const dir = await tempDir('sx-prod-');
    const prodPort = await freePort();
    const prod = ServiceProcess.start({
      port: prodPort,
      schema: 'unused',
      redisUrl: 'redis://unused',
      env: { ...embedded(dir.dir), NODE_ENV: 'production', PAGE_TOKEN_SECRET: 'x'.repeat(40) },
    });
    try {
      await prod.listening(120_000);
      await expect(stat(path.join(dir.dir, 'operator.token'))).rejects.toThrow();
      const r = await fetch(`http://127.0.0.1:${prodPort}/operator/v1/credits`, { method: 'POST' });
      expect(r.status).toBe(404);
    } finally {
      await prod.stop();
      await dir.remove();
    }
  }, 150_000);
});
