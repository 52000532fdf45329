import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, newKeyPair, onboard, signed, signIn, type ClientKey } from '../helpers/auth.ts';
import { normaliseSolanaAddress } from '../../src/domain/networks.ts';
import { ChainNetworksDocument, CreateDepositAddressDocument } from '../generated/graphql/graphql.ts';
import { gql } from '../helpers/graphql.ts';
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
        { symbol: 'SOL', unifiedAssetId: 3, zippedAssetId: 50101, tokenAddress: '', nativeDecimals: 9, minDeposit: '0.01', minWithdraw: '0.01', withdrawFee: '0.001' },
        { symbol: 'USDC', unifiedAssetId: 4, zippedAssetId: 50102, tokenAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', nativeDecimals: 6, minDeposit: '1', minWithdraw: '1', withdrawFee: '0.5' },
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

describe('POST /v1/chain/deposit-addresses', () => {
  it('gives each account one stable address per chain, in the chain\'s own form, also under concurrent calls', async () => {
    const me = await onboard(server.url);
    const create = (chainId: number) => api(server.url, 'POST', '/v1/chain/deposit-addresses', { chainId }, me.auth);
    const evm = await create(1);
    expect(evm.status, JSON.stringify(evm.body)).toBe(200);
    expect(evm.body).toEqual({ depositAddress: { chainId: 1, depositAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) } });
    const again = await Promise.all([create(1), create(1), create(1)]);
    expect(new Set(again.map((r) => r.body.depositAddress.depositAddress))).toEqual(new Set([evm.body.depositAddress.depositAddress]));
    const sol = await create(501);
    expect(normaliseSolanaAddress(sol.body.depositAddress.depositAddress, 'x')).toBe(sol.body.depositAddress.depositAddress);
    const rows = await server.database.prisma.depositAddress.findMany({ where: { account: { publicId: me.rootAccountId } } });
    expect(rows.map((r) => r.chainId).sort()).toEqual([1, 501]);
    const other = await onboard(server.url);
    const theirs = await api(server.url, 'POST', '/v1/chain/deposit-addresses', { chainId: 1 }, other.auth);
    expect(theirs.body.depositAddress.depositAddress).not.toBe(evm.body.depositAddress.depositAddress);
    const unknown = await create(31337);
    expect(unknown.status).toBe(400);
    expect(unknown.body.violations[0]).toMatchObject({ fieldPath: 'chainId', ruleId: 'unknown-network' });
  });

  it('needs the current terms, WITHDRAW on an API key, and a unit of DEPOSIT_CREATE (burst 3)', async () => {
    const fresh = await signIn(server.url);
    const refused = await api(server.url, 'POST', '/v1/chain/deposit-addresses', { chainId: 1 }, fresh.auth);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('TERMS_NOT_ACCEPTED');

    const me = await onboard(server.url);
    const keyWith = async (permissions: string[]): Promise<ClientKey> => {
      const policy = await api(server.url, 'POST', '/v1/auth/api-policies', { name: `p-${permissions.join('-')}`, permissions }, me.auth);
      const pair = newKeyPair();
      const created = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'k', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId }, me.auth);
      return { keyId: created.body.apiKey.keyId, ...pair };
    };
    const trading = await keyWith(['READ', 'TRADE']);
    expect((await signed(server.url, trading, 'POST', '/v1/chain/deposit-addresses', { chainId: 1 })).status).toBe(403);
    const withdrawing = await keyWith(['READ', 'WITHDRAW']);
    expect((await signed(server.url, withdrawing, 'POST', '/v1/chain/deposit-addresses', { chainId: 1 })).status).toBe(200);

    const limited = await signIn(server.url);
    const terms = await api(server.url, 'GET', '/v1/auth/terms', undefined, limited.auth);
    await api(server.url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, limited.auth);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await api(server.url, 'POST', '/v1/chain/deposit-addresses', { chainId: 10 }, limited.auth)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('chains over GraphQL', () => {
  it('lists the networks and gives the same deposit address as /v1', async () => {
    const networks = await gql(server.url, ChainNetworksDocument, {});
    expect(networks.body.data?.chainNetworks.find((n) => n.registryChainId === 501)).toMatchObject({ family: 'SOLANA', depositConfirmations: 32 });
    const me = await onboard(server.url);
    const viaGraphql = await gql(server.url, CreateDepositAddressDocument, { chainId: 8453 }, me.auth);
    expect(viaGraphql.body.errors).toBeUndefined();
    const viaRest = await api(server.url, 'POST', '/v1/chain/deposit-addresses', { chainId: 8453 }, me.auth);
    expect(viaGraphql.body.data?.createDepositAddress).toEqual(viaRest.body.depositAddress);
  });
});
