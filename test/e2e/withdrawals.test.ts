import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { api, newKeyPair, onboard, type SignedIn } from '../helpers/auth.ts';
import { CancelTradingWithdrawDocument, CreateWalletTradingWithdrawDocument, ValidateWithdrawDestinationDocument, WithdrawFlowUpdatesDocument } from '../generated/graphql/graphql.ts';
import { gql, wsClient } from '../helpers/graphql.ts';
import { shiftableClock } from '../helpers/clock.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { keyFor } from '../helpers/rooms.ts';
import { balancesOf, credit, ledgerViolations, SOUND_LEDGER } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';
import { createSpotClient } from '../../client/index.ts';
import type { ChainAdapter } from '../../src/infra/chain/adapter.ts';
import { simulatedChain } from '../../src/infra/chain/simulated.ts';
import { liftKey, payload, payloadBytes, walletSignature, withdrawWithKey, withdrawWithWallet } from '../helpers/withdraw.ts';

const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const USDC = 4;
const E18 = 10n ** 18n;
const usdc = (units: number) => (BigInt(units) * E18).toString();
const EXTERNAL = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const OTHER_EXTERNAL = '0x000000000000000000000000000000000000dEaD';

let server: RunningApp;
beforeAll(async () => {
  // A block every 50 ms: the sweep (every 250 ms) runs one block per tick.
  server = await startTestApp({ env: { CHAIN_BLOCK_MS: '50' } });
});
afterAll(async () => {
  await server?.close();
});

type Flow = { flowId: string; flowKind: string; flowState: string; currentStep: string; isOpen: boolean; lifecycleReason: string; destinationAddress: string; latestTxRef: string; requestFee: { status: string; amountE18: { hi: string; lo: string } }; currentProgress: { approveCount: number; requiredApprovals: number; currentConfirmations: number; requiredConfirmations: number }; progressTimeline: { step: string; status: string }[] };
const flows = async (me: SignedIn, query = '') => (await api(server.url, 'GET', `/v1/chain/flows${query}`, undefined, me.auth)).body.flows as Flow[];
const flowOf = async (me: SignedIn, kind: string) => (await flows(me, `?flowKind=${kind}`))[0] as Flow;
const trading = async (me: SignedIn) => (await balancesOf(server.url, me))['TRADING:USDC'];

describe('a withdrawal from Trading', () => {
  it('deposits, moves to TRADING, withdraws with an API key and with a wallet, and every leg carries its flow', async () => {
    const me = await onboard(server.url);
    const address = (await api(server.url, 'POST', '/v1/chain/deposit-addresses', { chainId: 1 }, me.auth)).body.depositAddress.depositAddress as string;
    const seen = await api(server.url, 'POST', '/operator/v1/chain/deposits', { chainId: 1, address, asset: 'USDC', amount: '1000', txHash: '0xfeed01' }, operator);
    const depositId = seen.body.flow.flowId as string;
    await pollUntil(async () => (await flows(me, '?flowKind=DEPOSIT&flowState=COMPLETED')).length === 1, 15_000, 100);
    expect((await api(server.url, 'POST', '/v1/transfers/internal', { asset: 'USDC', amount: '1000', fromLedger: 'FUNDING', toLedger: 'TRADING' }, me.auth)).status).toBe(200);

    const key = await keyFor(server.url, me, ['READ', 'WITHDRAW']);
    await liftKey(server.url, key.keyId);
    const first = payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(100), assetId: USDC, destinationChainId: '1', destinationAddress: EXTERNAL.toLowerCase() });
    // Credited at 12 confirmations, withdrawable on chain at 64: 52 more blocks (2.6 s here).
    const early = await withdrawWithKey(server.url, key, first);
    expect([early.status, early.body.code]).toEqual([400, 'DEPOSIT_NOT_FINAL']);
    expect(await trading(me)).toEqual({ available: '1000', held: '0' });
    let byKey = early;
    await pollUntil(async () => (byKey = await withdrawWithKey(server.url, key, first)).status === 200, 10_000, 200);
    expect(byKey.status, JSON.stringify(byKey.body)).toBe(200);
    expect(byKey.body.intentId).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
    // Held at once: 100 and Ethereum's 2 USDC fee.
    expect(await trading(me)).toEqual({ available: '898', held: '102' });
    const pending = await flowOf(me, 'WITHDRAW_TO_EXTERNAL_CHAIN');
    expect(pending.flowId).toBe(byKey.body.intentId);
    expect(pending).toMatchObject({ flowState: 'PENDING_VALIDATION', currentStep: 'VALIDATION', isOpen: true, destinationAddress: EXTERNAL, requestFee: { status: 'LOCKED', amountE18: { hi: '0', lo: usdc(2) } } });
    expect(pending.currentProgress).toMatchObject({ requiredApprovals: 2, requiredConfirmations: 12 });
    await pollUntil(async () => (await flowOf(me, 'WITHDRAW_TO_EXTERNAL_CHAIN')).flowState === 'COMPLETED', 15_000, 100);
    const done = await flowOf(me, 'WITHDRAW_TO_EXTERNAL_CHAIN');
    expect(done).toMatchObject({ currentStep: 'COMPLETE', isOpen: false, requestFee: { status: 'SETTLED' }, currentProgress: { approveCount: 2, currentConfirmations: 12 } });
    expect(done.latestTxRef).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.progressTimeline.map((s) => [s.step, s.status])).toEqual([['SOURCE', 'COMPLETED'], ['VALIDATION', 'COMPLETED'], ['DESTINATION', 'COMPLETED'], ['COMPLETE', 'COMPLETED']]);
    expect(await trading(me)).toEqual({ available: '898', held: '0' });

    // The wallet variant, to BNB Smart Chain (fee 0.3), from a session.
    const base = payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(50), assetId: USDC, destinationChainId: '56', destinationAddress: EXTERNAL });
    const byWallet = await withdrawWithWallet(server.url, me, base, { symbol: 'USDC', destinationLabel: `${EXTERNAL} on BNB Smart Chain (network 56)` });
    expect(byWallet.status, JSON.stringify(byWallet.body)).toBe(200);
    expect(await trading(me)).toEqual({ available: '847.7', held: '50.3' });
    // To the account's own Funding: moved at once, no fee.
    const toFunding = await withdrawWithKey(server.url, key, payload({ action: 'TO_FUNDING', amount: usdc(10), assetId: USDC }));
    expect(toFunding.status, JSON.stringify(toFunding.body)).toBe(200);
    expect(await flowOf(me, 'WITHDRAW_TO_FUNDING')).toMatchObject({ flowState: 'COMPLETED', isOpen: false, progressTimeline: [{ step: 'SOURCE', status: 'COMPLETED' }, { step: 'SETTLEMENT', status: 'COMPLETED' }, { step: 'COMPLETE', status: 'COMPLETED' }] });
    await pollUntil(async () => (await flows(me, '?scope=OPEN')).length === 0, 15_000, 100);
    expect(await balancesOf(server.url, me)).toEqual({ 'FUNDING:USDC': { available: '10', held: '0' }, 'TRADING:USDC': { available: '837.7', held: '0' } });

    expect(await ledgerViolations((text) => server.database.sql.query(text))).toEqual(SOUND_LEDGER);
    const legs = (await api(server.url, 'GET', '/v1/transfers?limit=100', undefined, me.auth)).body.transfers as { flowId: string; transferCode: string; amount: string; isDebit: boolean; account: string; destination: { kind: string; address: string; chainId: number } }[];
    const withdrawFlows = new Set((await flows(me)).filter((f) => f.flowKind !== 'DEPOSIT').map((f) => f.flowId));
    expect(legs.filter((l) => l.flowId === depositId).map((l) => l.transferCode)).toEqual(['DEPOSIT']);
    const withdrawn = legs.filter((l) => withdrawFlows.has(l.flowId));
    expect(withdrawn.map((l) => [l.transferCode, l.amount, l.isDebit]).sort()).toEqual(
      [['WITHDRAW', '100', true], ['WITHDRAW_FEE', '2', true], ['WITHDRAW', '50', true], ['WITHDRAW_FEE', '0.3', true], ['WITHDRAW', '10', true], ['WITHDRAW', '10', false]].sort(),
    );
    expect(withdrawn.find((l) => l.transferCode === 'WITHDRAW' && l.amount === '100')?.destination).toMatchObject({ kind: 'EXTERNAL_ADDRESS', address: EXTERNAL, chainId: 1 });
    // Every leg of a withdrawal names its flow; internal transfers name none.
    expect(legs.filter((l) => l.transferCode.startsWith('WITHDRAW')).every((l) => withdrawFlows.has(l.flowId))).toBe(true);
  });
});

describe('from a subaccount, to another account', () => {
  it('the wallet variant withdraws from a subaccount to another account\'s Funding at once; only the owner sees the flow', async () => {
    const me = await onboard(server.url);
    const other = await onboard(server.url);
    const sub = (await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'desk' }, me.auth)).body.subaccount.subaccountId as string;
    await credit(server.url, sub, 'USDC', '100');
    // The receiver named by its smart-account address (as flows show it), lower case.
    const otherAddress = (await server.database.prisma.account.findUniqueOrThrow({ where: { publicId: other.rootAccountId } })).smartAccountAddress as string;
    expect(otherAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const p = payload({ action: 'TO_FUNDING', amount: usdc(30), assetId: USDC, destinationAddress: otherAddress.toLowerCase() });
    const r = await withdrawWithWallet(server.url, me, p, { subaccountId: sub, accountId: sub, symbol: 'USDC', destinationLabel: `Funding of ${otherAddress.toLowerCase()}` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await balancesOf(server.url, me, sub))['TRADING:USDC']).toEqual({ available: '70', held: '0' });
    expect((await balancesOf(server.url, other))['FUNDING:USDC']).toEqual({ available: '30', held: '0' });
    const [flow] = (await api(server.url, 'GET', `/v1/chain/flows?ownerAccountId=${sub}`, undefined, me.auth)).body.flows as (Flow & { ownerAccountId: string })[];
    expect(flow).toMatchObject({ flowId: r.body.intentId, ownerAccountId: sub, flowKind: 'WITHDRAW_TO_FUNDING', flowState: 'COMPLETED', destinationAddress: otherAddress.toLowerCase() });
    // The smart-account address selector: the subaccount's flows by its address, none by the receiver's.
    const subAddress = (flow as unknown as { smartAccountAddress: string }).smartAccountAddress;
    expect(subAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(((await api(server.url, 'GET', `/v1/chain/flows?smartAccountAddress=${subAddress.toLowerCase()}`, undefined, me.auth)).body.flows as Flow[]).map((f) => f.flowId)).toEqual([r.body.intentId]);
    expect((await api(server.url, 'GET', `/v1/chain/flows?smartAccountAddress=${otherAddress}`, undefined, me.auth)).body.flows).toEqual([]);
    expect((await api(server.url, 'GET', '/v1/chain/flows?smartAccountAddress=0x12', undefined, me.auth)).status).toBe(400);
    // By public id too.
    const byId = await withdrawWithWallet(server.url, me, payload({ action: 'TO_FUNDING', amount: usdc(1), assetId: USDC, destinationAddress: other.rootAccountId }), { subaccountId: sub, accountId: sub, symbol: 'USDC', destinationLabel: `Funding of ${other.rootAccountId}` });
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect(await flows(other)).toEqual([]);
    // The receiver's leg names the flow and the sender's account.
    const leg = ((await api(server.url, 'GET', '/v1/transfers?reversed=false', undefined, other.auth)).body.transfers as { flowId: string; transferCode: string; isDebit: boolean }[])[0];
    expect(leg).toMatchObject({ flowId: r.body.intentId, transferCode: 'WITHDRAW', isDebit: false });
    const unknown = await withdrawWithWallet(server.url, me, payload({ action: 'TO_FUNDING', amount: usdc(1), assetId: USDC, destinationAddress: 'NoSuchAccount1' }), { subaccountId: sub, accountId: sub, symbol: 'USDC', destinationLabel: 'Funding of NoSuchAccount1' });
    expect([unknown.status, unknown.body.code]).toEqual([400, 'DESTINATION_NOT_FOUND']);
  });
});

describe('idempotency, replay and every rejection rule', () => {
  it('ten concurrent identical submissions create one intent and one hold', async () => {
    const me = await onboard(server.url);
    await credit(server.url, me.rootAccountId, 'USDC', '500');
    const key = await keyFor(server.url, me, ['WITHDRAW', 'READ']);
    await liftKey(server.url, key.keyId);
    const p = payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(100), assetId: USDC, destinationChainId: '1', destinationAddress: EXTERNAL });
    // Ten requests, each with its own request timestamp: two signed in one millisecond would be one request replayed (401).
    const now = Date.now();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => withdrawWithKey(server.url, key, p, key.secretKey, String(now - i))));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.intentId)).size).toBe(1);
    expect(await trading(me)).toEqual({ available: '398', held: '102' });
    expect((await flows(me, '?flowKind=WITHDRAW_TO_EXTERNAL_CHAIN')).length).toBe(1);
    // The same key with another payload, and the same nonce under another key: refused, nothing held.
    const conflict = await withdrawWithKey(server.url, key, { ...p, amount: usdc(101) });
    expect([conflict.status, conflict.body.code]).toEqual([409, 'CONFLICT_IDEMPOTENCY_KEY_REUSED']);
    const reusedNonce = await withdrawWithKey(server.url, key, { ...p, idempotencyKey: 'another-key' });
    expect([reusedNonce.status, reusedNonce.body.code]).toEqual([409, 'CONFLICT_NONCE_REUSED']);
    expect(await trading(me)).toEqual({ available: '398', held: '102' });
  });

  it('refuses each bad submission with a clear error and no balance change', async () => {
    const me = await onboard(server.url);
    await credit(server.url, me.rootAccountId, 'USDC', '500');
    const key = await keyFor(server.url, me, ['WITHDRAW', 'READ']);
    await liftKey(server.url, key.keyId);
    const readOnly = await keyFor(server.url, me, ['READ']);
    const ext = (fields: Record<string, unknown> = {}) => payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(10), assetId: USDC, destinationChainId: '1', destinationAddress: EXTERNAL, ...fields });
    const now = Math.floor(Date.now() / 1000);
    const ownDeposit = (await api(server.url, 'POST', '/v1/chain/deposit-addresses', { chainId: 1 }, me.auth)).body.depositAddress.depositAddress as string;
    const refusals: [string, Promise<{ status: number; body: any }>, number, string][] = [
      ['expired deadline', withdrawWithKey(server.url, key, ext({ deadlineTsSec: String(now - 1) })), 400, 'DEADLINE_EXPIRED'],
      ['deadline too far ahead', withdrawWithKey(server.url, key, ext({ deadlineTsSec: String(now + 7200) })), 400, 'DEADLINE_TOO_FAR'],
      ['signed by another key', withdrawWithKey(server.url, key, ext(), newKeyPair().secretKey), 401, 'INVALID_PAYLOAD_SIGNATURE'],
      ['amount with a decimal point', withdrawWithKey(server.url, key, ext({ amount: '10.5' })), 400, 'AMOUNT_ENCODING'],
      ['finer than the token', withdrawWithKey(server.url, key, ext({ amount: '10000000000000000001' })), 400, 'AMOUNT_PRECISION'],
      ['below the minimum', withdrawWithKey(server.url, key, ext({ amount: (E18 / 2n).toString() })), 400, 'AMOUNT_BELOW_MINIMUM'],
      ['more than the balance', withdrawWithKey(server.url, key, ext({ amount: usdc(499) })), 400, 'INSUFFICIENT_BALANCE'],
      ['bad checksum', withdrawWithKey(server.url, key, ext({ destinationAddress: '0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913' })), 400, 'DESTINATION_INVALID'],
      ['unknown network', withdrawWithKey(server.url, key, ext({ destinationChainId: '999' })), 400, 'DESTINATION_INVALID'],
      ['asset not on the network', withdrawWithKey(server.url, key, ext({ destinationChainId: '137', assetId: 2, amount: usdc(1) })), 400, 'ASSET_NOT_ON_NETWORK'],
      ['our own deposit address', withdrawWithKey(server.url, key, ext({ destinationAddress: ownDeposit })), 400, 'DESTINATION_INTERNAL'],
      ['not canonical', withdrawWithKey(server.url, key, new TextEncoder().encode(JSON.stringify(ext(), null, 1))), 400, 'PAYLOAD_NOT_CANONICAL'],
      ['a key without WITHDRAW', withdrawWithKey(server.url, readOnly, ext()), 403, 'MISSING_PERMISSION'],
      ['a session on the API-key variant', api(server.url, 'POST', '/v1/chain/trading-withdraws', { payload: Buffer.from(payloadBytes(ext() as never)).toString('base64'), payloadSignature: Buffer.alloc(64).toString('base64') }, me.auth), 403, 'API_KEY_REQUIRED'],
      ['another wallet', withdrawWithWallet(server.url, me, ext(), { signer: privateKeyToAccount(generatePrivateKey()), signerWallet: privateKeyToAccount(generatePrivateKey()).address, symbol: 'USDC', destinationLabel: `${EXTERNAL} on Ethereum (network 1)` }), 403, 'WALLET_NOT_ACCOUNT_OWNER'],
      ['the account wallet named, another one signing', withdrawWithWallet(server.url, me, ext(), { signer: privateKeyToAccount(generatePrivateKey()), symbol: 'USDC', destinationLabel: `${EXTERNAL} on Ethereum (network 1)` }), 401, 'INVALID_WALLET_SIGNATURE'],
      ['a message that shows another destination', withdrawWithWallet(server.url, me, ext(), { symbol: 'USDC', destinationLabel: `${OTHER_EXTERNAL} on Ethereum (network 1)` }), 401, 'INVALID_WALLET_SIGNATURE'],
    ];
    for (const [what, pending, status, code] of refusals) {
      const r = await pending;
      expect([what, r.status, r.body?.code], JSON.stringify(r.body)).toEqual([what, status, code]);
    }
    expect(await trading(me)).toEqual({ available: '500', held: '0' });
    expect(await flows(me, '?flowKind=WITHDRAW_TO_EXTERNAL_CHAIN')).toEqual([]);
  });
});

describe('WITHDRAW_SUBMIT', () => {
  it('allows a burst of 5 submissions per key, refused ones included, then answers 429 naming the pool', async () => {
    const me = await onboard(server.url);
    const key = await keyFor(server.url, me, ['WITHDRAW', 'READ']);
    const expired = () => payload({ action: 'TO_FUNDING', amount: usdc(1), assetId: USDC, deadlineTsSec: String(Math.floor(Date.now() / 1000) - 5) });
    for (let i = 0; i < 5; i++) expect((await withdrawWithKey(server.url, key, expired())).body.code).toBe('DEADLINE_EXPIRED');
    const limited = await withdrawWithKey(server.url, key, expired());
    expect([limited.status, limited.body.rate_limit?.policy_class, limited.body.rate_limit?.scope]).toEqual([429, 'WITHDRAW_SUBMIT', 'API_KEY']);
    expect(Number(limited.body.rate_limit.retry_after_ms)).toBeGreaterThan(5_000);
  });
});

describe('the allow-list and destination validation', () => {
  it('withdraws only to address-book entries once on; a key can switch it on but not off', async () => {
    const me = await onboard(server.url);
    await credit(server.url, me.rootAccountId, 'USDC', '100');
    const key = await keyFor(server.url, me, ['WITHDRAW', 'READ']);
    const ext = (address: string) => payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(5), assetId: USDC, destinationChainId: '10', destinationAddress: address });
    const validate = (address: string) => api(server.url, 'POST', '/v1/chain/withdraw-destinations:validate', { chainId: 10, address }, me.auth);

    expect((await validate(EXTERNAL)).body).toMatchObject({ valid: true, normalizedAddress: EXTERNAL, isInternal: false, inAddressBook: false, allowListOnly: false, allowed: true });
    expect((await validate('0x1234')).body).toMatchObject({ valid: false, allowed: false, reason: expect.stringContaining('20-byte') });

    const on = await api(server.url, 'PUT', '/v1/chain/withdraw-allow-list', { enabled: true }, {});
    expect(on.status).toBe(401);
    const { signed } = await import('../helpers/auth.ts');
    expect((await signed(server.url, key, 'PUT', '/v1/chain/withdraw-allow-list', { enabled: true })).body).toEqual({ allowListOnly: true });
    const off = await signed(server.url, key, 'PUT', '/v1/chain/withdraw-allow-list', { enabled: false });
    expect([off.status, off.body.code]).toEqual([403, 'ALLOW_LIST_SESSION_REQUIRED']);

    const refused = await withdrawWithKey(server.url, key, ext(EXTERNAL));
    expect([refused.status, refused.body.code]).toEqual([403, 'DESTINATION_NOT_ALLOWLISTED']);
    expect((await validate(EXTERNAL)).body).toMatchObject({ allowListOnly: true, inAddressBook: false, allowed: false });
    const entry = await api(server.url, 'POST', '/v1/auth/address-book-entries', { kind: 'EXTERNAL_CHAIN', label: 'cold wallet', external: { registryChainId: 10, address: EXTERNAL } }, me.auth);
    expect(entry.status, JSON.stringify(entry.body)).toBe(200);
    expect((await validate(EXTERNAL.toLowerCase())).body).toMatchObject({ inAddressBook: true, allowed: true });
    expect((await withdrawWithKey(server.url, key, ext(EXTERNAL))).status).toBe(200);
    // Own Funding is always allowed.
    expect((await withdrawWithKey(server.url, key, payload({ action: 'TO_FUNDING', amount: usdc(1), assetId: USDC }))).status).toBe(200);
    expect((await api(server.url, 'PUT', '/v1/chain/withdraw-allow-list', { enabled: false }, me.auth)).body).toEqual({ allowListOnly: false });
    expect((await withdrawWithKey(server.url, key, ext(OTHER_EXTERNAL))).status).toBe(200);
  });
});

describe('faults', () => {
  it('a dropped transaction releases the hold and ends with its reason', async () => {
    const me = await onboard(server.url);
    await credit(server.url, me.rootAccountId, 'USDC', '100');
    const key = await keyFor(server.url, me, ['WITHDRAW', 'READ']);
    // Polygon needs 256 confirmations: time enough to drop it while it confirms.
    const r = await withdrawWithKey(server.url, key, payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(20), assetId: USDC, destinationChainId: '137', destinationAddress: EXTERNAL }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await pollUntil(async () => (await flowOf(me, 'WITHDRAW_TO_EXTERNAL_CHAIN')).flowState === 'DESTINATION_CONFIRMING', 10_000, 50);
    const flowId = (await flowOf(me, 'WITHDRAW_TO_EXTERNAL_CHAIN')).flowId;
    const dropped = await api(server.url, 'POST', '/operator/v1/chain/withdrawals/drop', { flowId }, operator);
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);
    expect(dropped.body.flow).toMatchObject({ flowState: 'DROPPED', lifecycleReason: 'TRANSACTION_DROPPED', isTerminal: true, requestFee: { status: 'REFUNDED' } });
    expect(await trading(me)).toEqual({ available: '100', held: '0' });
    expect((await api(server.url, 'POST', '/operator/v1/chain/withdrawals/drop', { flowId }, operator)).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await flowOf(me, 'WITHDRAW_TO_EXTERNAL_CHAIN')).toMatchObject({ flowState: 'DROPPED' });
    expect(await ledgerViolations((text) => server.database.sql.query(text))).toEqual(SOUND_LEDGER);
  });

  it('a reject or cancel racing the broadcast has exactly one outcome: it wins with the hold released once and nothing sent, or it is refused and the withdrawal sent', async () => {
    // The chain rejects or cancels each withdrawal the moment it is broadcast (the hostile race), besides the same call sent at a staggered time.
    const sent = new Set<string>();
    const racers = new Map<string, () => Promise<number>>();
    const atBroadcast = new Map<string, Promise<number>>();
    const sim = simulatedChain('race');
    const chain: ChainAdapter = {
      depositAddress: (accountId, network) => sim.depositAddress(accountId, network),
      submitWithdrawal(network, w) {
        sent.add(w.reference);
        const race = racers.get(w.reference);
        if (race && !atBroadcast.has(w.reference)) atBroadcast.set(w.reference, race());
        return sim.submitWithdrawal(network, w);
      },
    };
    const app = await startTestApp({ chain, env: { CHAIN_BLOCK_MS: '50' } });
    try {
      const outcomes: { how: string; status: number; atBroadcast: number | undefined; state: string; sent: boolean; txRef: boolean; intent: string; trading: unknown }[] = [];
      await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const me = await onboard(app.url);
          await credit(app.url, me.rootAccountId, 'USDC', '100');
          const key = await keyFor(app.url, me, ['WITHDRAW', 'READ']);
          const r = await withdrawWithKey(app.url, key, payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(20), assetId: USDC, destinationChainId: '1', destinationAddress: EXTERNAL }));
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          const flowId = r.body.intentId as string;
          const how = i % 2 === 0 ? 'REJECT' : 'CANCEL';
          const call = async () => (how === 'REJECT' ? api(app.url, 'POST', '/operator/v1/chain/withdrawals/reject', { flowId }, operator) : api(app.url, 'POST', `/v1/chain/trading-withdraws/${flowId}/cancel`, undefined, me.auth));
          racers.set(flowId, async () => (await call()).status);
          // From before the first approval to after the broadcast (two approvals, a block every 50 ms, a sweep every 250 ms).
          await new Promise((resolve) => setTimeout(resolve, 200 + i * 40));
          const answer = await call();
          expect([200, 409], JSON.stringify(answer.body)).toContain(answer.status);
          const flow = async () => ((await api(app.url, 'GET', '/v1/chain/flows?flowKind=WITHDRAW_TO_EXTERNAL_CHAIN', undefined, me.auth)).body.flows as Flow[])[0] as Flow;
          await pollUntil(async () => !(await flow()).isOpen, 15_000, 50);
          const ended = await flow();
          // The intents table follows the journal: read it once it shows the end.
          const intentStatus = async () => (await app.database.sql.query<{ status: string }>(`SELECT status::text FROM "WithdrawIntent" WHERE "publicId" = '${flowId}'`))[0]?.status ?? '';
          await pollUntil(async () => ['REJECTED', 'CANCELED', 'COMPLETED', 'FAILED', 'EXPIRED'].includes(await intentStatus()), 5_000, 50);
          outcomes.push({ how, status: answer.status, atBroadcast: await atBroadcast.get(flowId), state: ended.flowState, sent: sent.has(flowId), txRef: ended.latestTxRef !== '', intent: await intentStatus(), trading: (await balancesOf(app.url, me))['TRADING:USDC'] });
        }),
      );
      for (const o of outcomes) {
        const won = o.how === 'REJECT' ? { state: 'REJECTED', intent: 'REJECTED' } : { state: 'FAILED', intent: 'CANCELED' };
        expect([
          { how: o.how, status: 200, atBroadcast: undefined, ...won, sent: false, txRef: false, trading: { available: '100', held: '0' } },
          { how: o.how, status: 409, atBroadcast: 409, state: 'COMPLETED', sent: true, txRef: true, intent: 'COMPLETED', trading: { available: '78', held: '0' } },
        ]).toContainEqual(o);
      }
      expect(await ledgerViolations((text) => app.database.sql.query(text))).toEqual(SOUND_LEDGER);
    } finally {
      await app.close();
    }
  });

  it('a withdrawal not validated within the execution window expires and releases its hold', async () => {
    const clock = shiftableClock();
    const slow = await startTestApp({ clock, env: { CHAIN_BLOCK_MS: '60000', SESSION_TTL_SECONDS: String(7 * 24 * 3600) } });
    try {
      const me = await onboard(slow.url);
      await credit(slow.url, me.rootAccountId, 'USDC', '100');
      const p = payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(20), assetId: USDC, destinationChainId: '1', destinationAddress: EXTERNAL });
      const r = await withdrawWithWallet(slow.url, me, p, { symbol: 'USDC', destinationLabel: `${EXTERNAL} on Ethereum (network 1)` });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // An hour on, the next block finds it still awaiting its validators.
      clock.skip(3_600_000);
      const listFlows = async () => (await api(slow.url, 'GET', '/v1/chain/flows', undefined, me.auth)).body.flows as Flow[];
      await pollUntil(async () => (await listFlows())[0]?.flowState === 'EXPIRED', 5_000, 50);
      expect((await listFlows())[0]).toMatchObject({ flowId: r.body.intentId, flowState: 'EXPIRED', lifecycleReason: 'DEADLINE_EXPIRED', isTerminal: true, requestFee: { status: 'REFUNDED' } });
      expect((await balancesOf(slow.url, me))['TRADING:USDC']).toEqual({ available: '100', held: '0' });
      expect(await ledgerViolations((text) => slow.database.sql.query(text))).toEqual(SOUND_LEDGER);
    } finally {
      await slow.close();
    }
  });

  it('a withdrawal the validators reject releases its hold', async () => {
    // One block a minute: the withdrawal waits for its validators while the operator rejects it.
    const slow = await startTestApp({ env: { CHAIN_BLOCK_MS: '60000' } });
    try {
      const me = await onboard(slow.url);
      await credit(slow.url, me.rootAccountId, 'USDC', '100');
      const key = await keyFor(slow.url, me, ['WITHDRAW', 'READ']);
      const r = await withdrawWithKey(slow.url, key, payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(20), assetId: USDC, destinationChainId: '1', destinationAddress: EXTERNAL }));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const [flow] = (await api(slow.url, 'GET', '/v1/chain/flows', undefined, me.auth)).body.flows as Flow[];
      expect(flow?.flowState).toBe('PENDING_VALIDATION');
      expect((await balancesOf(slow.url, me))['TRADING:USDC']).toEqual({ available: '78', held: '22' });
      const rejected = await api(slow.url, 'POST', '/operator/v1/chain/withdrawals/reject', { flowId: flow?.flowId }, operator);
      expect(rejected.body.flow).toMatchObject({ flowState: 'REJECTED', lifecycleReason: 'ZIPPER_VALIDATION_REJECTED', currentProgress: { rejectCount: 2 }, requestFee: { status: 'REFUNDED' } });
      expect((await balancesOf(slow.url, me))['TRADING:USDC']).toEqual({ available: '100', held: '0' });
    } finally {
      await slow.close();
    }
  });
});

describe('withdrawals over GraphQL', () => {
  it('the wallet variant as a mutation; flowUpdates shows each step, the fee locked then settled', async () => {
    const me = await onboard(server.url);
    await credit(server.url, me.rootAccountId, 'USDC', '50');
    const check = await gql(server.url, ValidateWithdrawDestinationDocument, { chainId: 56, address: EXTERNAL.toLowerCase() }, me.auth);
    expect(check.body.data?.validateWithdrawDestination).toEqual({ valid: true, normalizedAddress: EXTERNAL, isInternal: false, inAddressBook: false, allowed: true });
    const client = wsClient(server.url, { authorization: me.auth.authorization as string });
    const seen: { state: string; approvals: number; confirmations: number; fee: string }[] = [];
    try {
      const done = new Promise<void>((resolve, reject) => {
        client.subscribe<{ flowUpdates: { flowState: string; currentProgress: { approveCount: number; currentConfirmations: number }; requestFee: { status: string } | null } }>(
          { query: WithdrawFlowUpdatesDocument.toString() },
          {
            next: (m) => {
              const f = m.data?.flowUpdates;
              if (!f) return;
              seen.push({ state: f.flowState, approvals: f.currentProgress.approveCount, confirmations: f.currentProgress.currentConfirmations, fee: f.requestFee?.status ?? '' });
              if (f.flowState === 'COMPLETED') resolve();
            },
            error: reject,
            complete: () => undefined,
          },
        );
      });
      await new Promise((r) => setTimeout(r, 300));
      const p = payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(20), assetId: USDC, destinationChainId: '56', destinationAddress: EXTERNAL });
      const bytes = payloadBytes(p as never);
      const signature = await walletSignature(me, p, { symbol: 'USDC', destinationLabel: `${EXTERNAL} on BNB Smart Chain (network 56)` });
      const made = await gql(server.url, CreateWalletTradingWithdrawDocument, { payload: Buffer.from(bytes).toString('base64'), payloadSignature: signature, signerWallet: me.wallet.address }, me.auth);
      expect(made.body.errors).toBeUndefined();
      expect(made.body.data?.createWalletTradingWithdraw.intentId).toBeTruthy();
      await done;
    } finally {
      await client.dispose();
    }
    expect(seen[0]).toEqual({ state: 'PENDING_VALIDATION', approvals: 0, confirmations: 0, fee: 'LOCKED' });
    expect(seen).toContainEqual({ state: 'PENDING_VALIDATION', approvals: 1, confirmations: 0, fee: 'LOCKED' });
    expect(seen).toContainEqual({ state: 'DESTINATION_CONFIRMING', approvals: 2, confirmations: 0, fee: 'LOCKED' });
    expect(seen.at(-1)).toEqual({ state: 'COMPLETED', approvals: 2, confirmations: 15, fee: 'SETTLED' });
    const confirmations = seen.map((x) => x.confirmations);
    expect([...confirmations].sort((a, b) => a - b)).toEqual(confirmations);
    expect(await trading(me)).toEqual({ available: '29.7', held: '0' });
  });
});

describe('cancel a pending withdrawal', () => {
  it('its owner cancels one not yet broadcast over /v1, GraphQL and the typed client: the hold released once; a stranger gets 404, a second cancel 409', async () => {
    // One block a minute: each withdrawal waits for its validators while it is canceled.
    const slow = await startTestApp({ env: { CHAIN_BLOCK_MS: '60000' } });
    try {
      const me = await onboard(slow.url);
      const stranger = await onboard(slow.url);
      await credit(slow.url, me.rootAccountId, 'USDC', '100');
      const key = await keyFor(slow.url, me, ['WITHDRAW', 'READ']);
      const withdraw = async () => {
        const r = await withdrawWithKey(slow.url, key, payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(20), assetId: USDC, destinationChainId: '1', destinationAddress: EXTERNAL }));
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.intentId as string;
      };
      const held = async () => (await balancesOf(slow.url, me))['TRADING:USDC'];
      const cancel = (intentId: string, auth: SignedIn['auth'] | undefined = me.auth) => api(slow.url, 'POST', `/v1/chain/trading-withdraws/${intentId}/cancel`, undefined, auth);

      const overRest = await withdraw();
      expect(await held()).toEqual({ available: '78', held: '22' });
      expect((await cancel(overRest, stranger.auth)).status).toBe(404);
      expect((await api(slow.url, 'POST', `/v1/chain/trading-withdraws/${overRest}/cancel`)).status).toBe(401);
      expect((await cancel('x'.repeat(65))).status).toBe(400);
      expect((await cancel('nope')).body.code).toBe('FLOW_NOT_FOUND');
      // A suffix glued onto the route is another path.
      expect((await api(slow.url, 'POST', `/v1/chain/trading-withdraws/${overRest}/cancelX`, undefined, me.auth)).status).toBe(404);
      expect(await held()).toEqual({ available: '78', held: '22' });
      const canceled = await cancel(overRest);
      expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
      expect(canceled.body.flow).toMatchObject({ flowId: overRest, flowState: 'FAILED', lifecycleReason: 'USER_CANCELED', isTerminal: true, requestFee: { status: 'REFUNDED' } });
      expect(await held()).toEqual({ available: '100', held: '0' });
      const again = await cancel(overRest);
      expect([again.status, again.body.code]).toEqual([409, 'FLOW_STATE_CONFLICT']);
      expect(await held()).toEqual({ available: '100', held: '0' });

      const overGql = await withdraw();
      const hidden = await gql(slow.url, CancelTradingWithdrawDocument, { intentId: overGql }, stranger.auth);
      expect(hidden.body.errors?.[0]?.extensions).toMatchObject({ code: 'FLOW_NOT_FOUND', status: 404 });
      // An id longer than any intent's is refused as over /v1, before any lookup (test/e2e/transport-bounds.test.ts).
      expect((await gql(slow.url, CancelTradingWithdrawDocument, { intentId: 'y'.repeat(5000) }, me.auth)).body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400, violations: [expect.objectContaining({ fieldPath: 'intentId' })] });
      const viaGql = await gql(slow.url, CancelTradingWithdrawDocument, { intentId: overGql }, me.auth);
      expect(viaGql.body.errors).toBeUndefined();
      expect(viaGql.body.data?.cancelTradingWithdraw).toEqual({ flowId: overGql, flowState: 'FAILED', lifecycleReason: 'USER_CANCELED', isTerminal: true, requestFee: { status: 'REFUNDED' } });
      expect((await gql(slow.url, CancelTradingWithdrawDocument, { intentId: overGql }, me.auth)).body.errors?.[0]?.extensions).toMatchObject({ code: 'FLOW_STATE_CONFLICT', status: 409 });

      const overClient = await withdraw();
      const client = createSpotClient({ baseUrl: slow.url, sessionToken: me.token });
      const typed = await client.POST('/v1/chain/trading-withdraws/{intentId}/cancel', { params: { path: { intentId: overClient } } });
      expect(typed.response.status).toBe(200);
      expect((typed.data as { flow: Flow } | undefined)?.flow.flowState).toBe('FAILED');

      expect(await held()).toEqual({ available: '100', held: '0' });
      // The intents table is the engine's projection: the last cancel reaches it a moment after its answer.
      const canceledIntents = async () =>
        (await slow.database.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "WithdrawIntent" WHERE status = 'CANCELED' AND "failureReason" = 'USER_CANCELED'`))[0]?.n;
      await pollUntil(async () => (await canceledIntents()) === '3', 5_000);
      expect(await canceledIntents()).toBe('3');
      expect(await ledgerViolations((text) => slow.database.sql.query(text))).toEqual(SOUND_LEDGER);
    } finally {
      await slow.close();
    }
  });

  it('marked for broadcast with its flow still awaiting validation (a crash between the two), it refuses a reject and a cancel, and the next block sends it', async () => {
    const clock = shiftableClock();
    const slow = await startTestApp({ clock, env: { CHAIN_BLOCK_MS: '60000', SESSION_TTL_SECONDS: String(7 * 24 * 3600) } });
    try {
      const me = await onboard(slow.url);
      await credit(slow.url, me.rootAccountId, 'USDC', '100');
      const key = await keyFor(slow.url, me, ['WITHDRAW', 'READ']);
      const r = await withdrawWithKey(slow.url, key, payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(20), assetId: USDC, destinationChainId: '1', destinationAddress: EXTERNAL }));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const [intent] = await slow.database.sql.query<{ id: string }>(`SELECT id::text FROM "WithdrawIntent" WHERE "publicId" = '${r.body.intentId}'`);
      // The block's engine job ran; the process died before it sent the transaction and saved the flow.
      expect(await slow.app.services.orders.engine.markWithdrawalSubmitted(BigInt(intent?.id as string))).toBe(true);
      const flow = async () => ((await api(slow.url, 'GET', '/v1/chain/flows', undefined, me.auth)).body.flows as Flow[])[0] as Flow;
      expect(await flow()).toMatchObject({ flowState: 'PENDING_VALIDATION', latestTxRef: '' });
      const rejected = await api(slow.url, 'POST', '/operator/v1/chain/withdrawals/reject', { flowId: r.body.intentId }, operator);
      const canceled = await api(slow.url, 'POST', `/v1/chain/trading-withdraws/${r.body.intentId}/cancel`, undefined, me.auth);
      expect([rejected.status, rejected.body.code, canceled.status, canceled.body.code]).toEqual([409, 'FLOW_STATE_CONFLICT', 409, 'FLOW_STATE_CONFLICT']);
      expect((await balancesOf(slow.url, me))['TRADING:USDC']).toEqual({ available: '78', held: '22' });
      clock.skip(60_000);
      await pollUntil(async () => (await flow()).flowState === 'DESTINATION_CONFIRMING', 5_000, 50);
      expect(await flow()).toMatchObject({ latestTxRef: expect.stringMatching(/^0x[0-9a-f]{64}$/), currentProgress: { approveCount: 2 }, requestFee: { status: 'LOCKED' } });
      expect((await balancesOf(slow.url, me))['TRADING:USDC']).toEqual({ available: '78', held: '22' });
    } finally {
      await slow.close();
    }
  });

  it('once broadcast it answers 409 and keeps its hold', async () => {
    const me = await onboard(server.url);
    await credit(server.url, me.rootAccountId, 'USDC', '100');
    const key = await keyFor(server.url, me, ['WITHDRAW', 'READ']);
    // Polygon needs 256 confirmations: time enough to try a cancel while it confirms.
    const r = await withdrawWithKey(server.url, key, payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(20), assetId: USDC, destinationChainId: '137', destinationAddress: EXTERNAL }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await pollUntil(async () => (await flowOf(me, 'WITHDRAW_TO_EXTERNAL_CHAIN')).flowState === 'DESTINATION_CONFIRMING', 10_000, 50);
    const before = await trading(me);
    expect(Number(before?.held)).toBeGreaterThan(20);
    const refused = await api(server.url, 'POST', `/v1/chain/trading-withdraws/${r.body.intentId}/cancel`, undefined, me.auth);
    expect([refused.status, refused.body.code]).toEqual([409, 'FLOW_STATE_CONFLICT']);
    const viaGql = await gql(server.url, CancelTradingWithdrawDocument, { intentId: r.body.intentId }, me.auth);
    expect(viaGql.body.errors?.[0]?.extensions).toMatchObject({ code: 'FLOW_STATE_CONFLICT', status: 409 });
    expect(await trading(me)).toEqual(before);
    expect(await flowOf(me, 'WITHDRAW_TO_EXTERNAL_CHAIN')).toMatchObject({ isOpen: true, requestFee: { status: 'LOCKED' } });
  });
});
