import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboard, type SignedIn } from '../helpers/auth.ts';
import { CreateOrderDocument, CreateWalletTradingWithdrawDocument } from '../generated/graphql/graphql.ts';
import { gql } from '../helpers/graphql.ts';
import { shiftableClock } from '../helpers/clock.ts';
import { startTestApp, testDatabase, testStore, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { keyFor } from '../helpers/rooms.ts';
import { balancesOf, credit, ledgerViolations, placeOrder, SOUND_LEDGER } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';
import { liftKey, payload, payloadBytes, walletSignature, withdrawWithKey, withdrawWithWallet } from '../helpers/withdraw.ts';

const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const USDC = 4;
const E18 = 10n ** 18n;
const usdc = (units: number) => (BigInt(units) * E18).toString();
const EXTERNAL = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
// Ethereum credits at 12 confirmations and is final at 64: 52 blocks of 250 ms, 13 s of the server's clock.
const LOCK_MS = 52 * 250;

const clock = shiftableClock();
let database: Awaited<ReturnType<typeof testDatabase>>;
let store: Awaited<ReturnType<typeof testStore>>;
let server: RunningApp;
const start = () => startTestApp({ clock, database, store, env: { CHAIN_BLOCK_MS: '250' } });
beforeAll(async () => {
  database = await testDatabase();
  store = await testStore();
  server = await start();
});
afterAll(async () => {
  await server?.close();
  await store?.flush();
  await database?.drop();
});

let txs = 0;
/** Deposits `amount` USDC on Ethereum to the account's Funding and waits for its credit: from then on it is locked. */
async function deposit(me: SignedIn, amount: string): Promise<void> {
  const address = (await api(server.url, 'POST', '/v1/chain/deposit-addresses', { chainId: 1 }, me.auth)).body.depositAddress.depositAddress as string;
  txs += 1;
  const seen = await api(server.url, 'POST', '/operator/v1/chain/deposits', { chainId: 1, address, asset: 'USDC', amount, txHash: `0xdead${txs.toString(16).padStart(4, '0')}` }, operator);
  expect(seen.status, JSON.stringify(seen.body)).toBe(200);
  const flowId = seen.body.flow.flowId as string;
  await pollUntil(async () => ((await api(server.url, 'GET', `/v1/chain/flows?flowKind=DEPOSIT&flowState=COMPLETED`, undefined, me.auth)).body.flows as { flowId: string }[]).some((f) => f.flowId === flowId), 20_000, 100);
}

const toTrading = (me: SignedIn, amount: string) => api(server.url, 'POST', '/v1/transfers/internal', { asset: 'USDC', amount, fromLedger: 'FUNDING', toLedger: 'TRADING' }, me.auth);
const smartAddress = async (who: SignedIn) => ((await server.database.prisma.account.findUniqueOrThrow({ where: { publicId: who.rootAccountId } })).smartAccountAddress as string).toLowerCase();
const external = (amount: number) => payload({ action: 'TO_EXTERNAL_CHAIN', amount: usdc(amount), assetId: USDC, destinationChainId: '1', destinationAddress: EXTERNAL.toLowerCase() });

describe('the deposit finality lock, held by the engine', () => {
  // One scenario in order: the lock must be live for every refusal, and lifts (by the clock) at the end.
  it('refuses every way out of a fresh deposit: to another account, through a trade, concurrently; lifts at finality', async () => {
    const x = await onboard(server.url);
    const y = await onboard(server.url);
    const xKey = await keyFor(server.url, x, ['READ', 'WITHDRAW', 'TRADE']);
    const yKey = await keyFor(server.url, y, ['READ', 'WITHDRAW']);
    await liftKey(server.url, xKey.keyId);
    await liftKey(server.url, yKey.keyId);
    // 100 final (an operator credit) beside a 1000 deposit not yet final.
    await credit(server.url, x.rootAccountId, 'USDC', '100');
    await deposit(x, '1000');
    // Between the account's own ledgers the lock moves with the funds.
    expect((await toTrading(x, '1000')).status).toBe(200);
    expect(await balancesOf(server.url, x)).toEqual({ 'TRADING:USDC': { available: '1100', held: '0' } });

    // The bypass of issue 26: To Funding of another account, then that account's withdrawal.
    const yAddress = await smartAddress(y);
    const toY = await withdrawWithKey(server.url, xKey, payload({ action: 'TO_FUNDING', amount: usdc(500), assetId: USDC, destinationAddress: yAddress }));
    expect([toY.status, toY.body.code, toY.body.violations?.[0]?.fieldPath]).toEqual([400, 'DEPOSIT_NOT_FINAL', 'payload.amount']);
    const toYByWallet = await withdrawWithWallet(server.url, x, payload({ action: 'TO_FUNDING', amount: usdc(101), assetId: USDC, destinationAddress: yAddress }), { symbol: 'USDC', destinationLabel: `Funding of ${yAddress}` });
    expect([toYByWallet.status, toYByWallet.body.code]).toEqual([400, 'DEPOSIT_NOT_FINAL']);
    const overGql = payload({ action: 'TO_FUNDING', amount: usdc(101), assetId: USDC, destinationAddress: yAddress });
    const signature = await walletSignature(x, overGql, { symbol: 'USDC', destinationLabel: `Funding of ${yAddress}` });
    const toYByGql = await gql(server.url, CreateWalletTradingWithdrawDocument, { payload: Buffer.from(payloadBytes(overGql as unknown as Record<string, unknown>)).toString('base64'), payloadSignature: signature, signerWallet: x.wallet.address }, x.auth);
    expect(toYByGql.body.errors?.[0]?.extensions).toMatchObject({ code: 'DEPOSIT_NOT_FINAL', status: 400, violations: [expect.objectContaining({ fieldPath: 'payload.amount', ruleId: 'deposit-not-final' })] });
    // Nor to a subaccount of the same root: the lock is the account's.
    const sub = (await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'desk' }, x.auth)).body.subaccount.subaccountId as string;
    const toSub = await api(server.url, 'POST', '/v1/transfers/internal', { asset: 'USDC', amount: '101', fromLedger: 'TRADING', toLedger: 'TRADING', toSubaccountId: sub }, x.auth);
    expect([toSub.status, toSub.body.code]).toEqual([400, 'DEPOSIT_NOT_FINAL']);
    expect(await balancesOf(server.url, y)).toEqual({});
    const fromY = await withdrawWithKey(server.url, yKey, external(50));
    expect([fromY.status, fromY.body.code]).toEqual([400, 'INSUFFICIENT_BALANCE']);
    // What is final may go, to anyone: 100 of the 1100.
    const finalToY = await withdrawWithKey(server.url, xKey, payload({ action: 'TO_FUNDING', amount: usdc(30), assetId: USDC, destinationAddress: yAddress }));
    expect(finalToY.status, JSON.stringify(finalToY.body)).toBe(200);
    expect((await balancesOf(server.url, y))['FUNDING:USDC']).toEqual({ available: '30', held: '0' });
    // To the account's own Funding it stays on the account: allowed whatever its size.
    const ownFunding = await withdrawWithKey(server.url, xKey, payload({ action: 'TO_FUNDING', amount: usdc(1000), assetId: USDC }));
    expect(ownFunding.status, JSON.stringify(ownFunding.body)).toBe(200);
    expect((await toTrading(x, '1000')).status).toBe(200);

    // Trading out of the asset: a bid holding locked USDC is refused on both transports, the final part may trade.
    const bid = { symbol: 'ETH-USDC', side: 'BUY' as const, baseQty: '1', limitGtc: { price: '500' } };
    const bidRest = await placeOrder(server.url, x, bid);
    expect([bidRest.status, bidRest.body.code, bidRest.body.violations?.[0]?.fieldPath]).toEqual([400, 'DEPOSIT_NOT_FINAL', 'order.baseQty']);
    const bidGql = await gql(server.url, CreateOrderDocument, { input: bid }, x.auth);
    expect(bidGql.body.errors?.[0]?.extensions).toMatchObject({ code: 'DEPOSIT_NOT_FINAL', status: 400 });
    const small = await placeOrder(server.url, x, { ...bid, baseQty: '0.1' });
    expect(small.status, JSON.stringify(small.body)).toBe(200);
    // Growing it past the final part is refused as well.
    const grow = await api(server.url, 'POST', '/v1/orders/modify', { orderId: small.body.orderId, newQty: '0.5' }, x.auth);
    expect([grow.status, grow.body.code, grow.body.violations?.[0]?.fieldPath]).toEqual([400, 'DEPOSIT_NOT_FINAL', 'newQty']);
    // 50 and its fee reserve held; what is left is the lock and a little change.
    expect((await balancesOf(server.url, x))['TRADING:USDC']).toEqual({ available: '1019.924999999999', held: '50.075000000001' });
    expect((await api(server.url, 'POST', '/v1/orders/cancel', { orderId: small.body.orderId }, x.auth)).status).toBe(200);

    // Concurrent external withdrawals of 30 (+2 fee): 70 is final, so at most two leave.
    const many = await Promise.all(Array.from({ length: 6 }, () => withdrawWithKey(server.url, xKey, external(30))));
    expect(many.filter((r) => r.status === 200)).toHaveLength(2);
    expect(many.filter((r) => r.status !== 200).map((r) => r.body.code)).toEqual(Array(4).fill('DEPOSIT_NOT_FINAL'));
    expect((await balancesOf(server.url, x))['TRADING:USDC']).toMatchObject({ held: '64' });

    // At finality the lock lifts: the same payloads are accepted.
    clock.skip(LOCK_MS);
    const late = await withdrawWithKey(server.url, xKey, payload({ action: 'TO_FUNDING', amount: usdc(500), assetId: USDC, destinationAddress: yAddress }));
    expect(late.status, JSON.stringify(late.body)).toBe(200);
    expect((await placeOrder(server.url, x, bid)).status).toBe(200);
    expect((await toTrading(y, '530')).status).toBe(200);
    const yOut = await withdrawWithKey(server.url, yKey, external(50));
    expect(yOut.status, JSON.stringify(yOut.body)).toBe(200);
    expect(await ledgerViolations((text) => server.database.sql.query(text))).toEqual(SOUND_LEDGER);
  });

  it('a restart rebuilds the lock from the ledger', async () => {
    const x = await onboard(server.url);
    const xKey = await keyFor(server.url, x, ['READ', 'WITHDRAW']);
    await liftKey(server.url, xKey.keyId);
    await deposit(x, '200');
    expect((await toTrading(x, '200')).status).toBe(200);
    await server.close();
    server = await start();
    const early = await withdrawWithKey(server.url, xKey, external(50));
    expect([early.status, early.body.code]).toEqual([400, 'DEPOSIT_NOT_FINAL']);
    clock.skip(LOCK_MS);
    const late = await withdrawWithKey(server.url, xKey, external(50));
    expect(late.status, JSON.stringify(late.body)).toBe(200);
  });
});
