import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('GET /v1/chain/networks', () => {
  it('lists the supported chains publicly: registry ids, families, confirmations and the listed assets each carries', async () => {
    const r = await api(server.url, 'GET', '/v1/chain/networks');
    expect(r.status).toBe(200);
    const ids = r.body.networks.map((n: { registryChainId: number }) => n.registryChainId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(r.body.networks.find((n: { registryChainId: number }) => n.registryChainId === 501)).toEqual({
      registryChainId: 501,
      name: 'Solana',
      family: 'SOLANA',
      nativeChainId: 'mainnet-beta',
      depositConfirmations: 32,
      withdrawConfirmations: 32,
      assets: [
        { symbol: 'SOL', unifiedAssetId: 3, zippedAssetId: 50101, tokenAddress: '', nativeDecimals: 9 },
        { symbol: 'USDC', unifiedAssetId: 4, zippedAssetId: 50102, tokenAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', nativeDecimals: 6 },
      ],
    });
    expect(r.body.networks.find((n: { registryChainId: number }) => n.registryChainId === 1)).toMatchObject({ family: 'EVM', depositConfirmations: 12, withdrawConfirmations: 64 });
  });

  it('the address book takes a Solana destination by its registry id and checks its address rule', async () => {
    const me = await signIn(server.url);
    const entry = (address: string) => ({ kind: 'EXTERNAL_CHAIN', label: 'sol', external: { address, registryChainId: 501 } });
    const ok = await api(server.url, 'POST', '/v1/auth/address-book-entries', entry('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'), me.auth);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const evm = await api(server.url, 'POST', '/v1/auth/address-book-entries', entry('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'), me.auth);
    expect(evm.status).toBe(400);
    expect(evm.body.violations).toEqual([{ fieldPath: 'external.address', message: expect.any(String), ruleId: 'solana-address' }]);
  });
});
