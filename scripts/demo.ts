import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as ed from '@noble/ed25519';
import { createClient as createWsClient } from 'graphql-ws';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { createSpotClient, type SpotClient } from '../client/index.ts';

/**
 * `npm run demo`: a newcomer's first trade against a running server (`npm start` in another
 * shell). Two fresh wallets sign in, accept the terms, create a trading policy and an
 * Ed25519 API key each, are funded through the operator API, and place crossing orders
 * over signed /v1 requests while a graphql-ws subscription shows the seller's order updates.
 *
 * BASE_URL (default http://127.0.0.1:PORT, PORT 8080); OPERATOR_TOKEN, else DATA_DIR/operator.token
 * (what `npm start` writes on the embedded defaults; DATA_DIR defaults to ./data).
 */
const baseUrl = (process.env.BASE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`).replace(/\/$/, '');
const SYMBOL = 'ETH-USDC';

async function operatorToken(): Promise<string> {
  if (process.env.OPERATOR_TOKEN) return process.env.OPERATOR_TOKEN;
  const file = path.resolve(process.env.DATA_DIR ?? './data', 'operator.token');
  const token = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (!token) throw new Error(`no operator token: set OPERATOR_TOKEN, or start the server with \`npm start\` (embedded defaults write ${file})`);
  return token;
}

/** Fails the demo with the server's problem body when a call did not succeed. */
function ok<T>(what: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${what}: HTTP ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

interface Trader {
  name: string;
  accountId: string;
  sessionToken: string;
  /** Signs every request with the trader's API key. */
  api: SpotClient;
}

async function onboard(name: string, operator: SpotClient): Promise<Trader> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const anonymous = createSpotClient({ baseUrl });
  const nonce = ok('nonce', await anonymous.POST('/v1/auth/wallet/nonce', { body: { address: wallet.address } }));
  const login = ok(
    'login',
    await anonymous.POST('/v1/auth/wallet/login', {
      body: { address: wallet.address, message: nonce.message, signature: await wallet.signMessage({ message: nonce.message }) },
    }),
  );
  const session = createSpotClient({ baseUrl, sessionToken: login.sessionToken });
  const terms = ok('terms', await session.GET('/v1/auth/terms'));
  ok('accept terms', await session.POST('/v1/auth/terms/accept', { body: { version: terms.currentVersion } }));
  const policy = ok('policy', await session.POST('/v1/auth/api-policies', { body: { name: 'demo trading', permissions: ['READ', 'TRADE'] } }));
  const seed = ed.utils.randomSecretKey();
  const publicKey = await ed.getPublicKeyAsync(seed);
  const key = ok(
    'api key',
    await session.POST('/v1/auth/api-keys', {
      body: { label: `demo ${name}`, publicKeyEd25519: Buffer.from(publicKey).toString('base64'), policyId: policy.policy.policyId },
    }),
  );
  console.log(`${name}: wallet ${wallet.address}, account ${login.rootAccountId}, API key ${key.apiKey.keyId}`);
  const funds = name === 'seller' ? { ETH: '2' } : { USDC: '10000' };
  for (const [asset, amount] of Object.entries(funds)) {
    ok('credit', await operator.POST('/operator/v1/credits', { body: { accountId: login.rootAccountId, asset, amount, ledgerAccount: 'TRADING' } }));
    console.log(`${name}: credited ${amount} ${asset}`);
  }
  return {
    name,
    accountId: login.rootAccountId,
    sessionToken: login.sessionToken,
    api: createSpotClient({ baseUrl, apiKey: { keyId: key.apiKey.keyId, seed } }),
  };
}

interface OrderUpdate {
  orderId: string;
  status: string;
  version: number;
  leavesQty: string;
}

/** The seller's order updates over graphql-ws, from the start of its stream (`after: 0`). */
function subscribeOrderUpdates(sessionToken: string, until: (u: OrderUpdate) => boolean) {
  const ws = createWsClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: { authorization: `Bearer ${sessionToken}` },
  });
  const updates: OrderUpdate[] = [];
  const done = new Promise<OrderUpdate[]>((resolve, reject) => {
    ws.subscribe<{ orderUpdates: OrderUpdate }>(
      { query: 'subscription { orderUpdates(after: "0") { orderId status version leavesQty } }' },
      {
        next: (r) => {
          if (r.errors) return reject(new Error(JSON.stringify(r.errors)));
          const u = r.data!.orderUpdates;
          updates.push(u);
          console.log(`  subscription: order ${u.orderId} is ${u.status} (version ${u.version}, ${u.leavesQty} left)`);
          if (until(u)) resolve(updates);
        },
        error: reject,
        complete: () => undefined,
      },
    );
  });
  return { done, close: () => ws.dispose() };
}

async function main() {
  console.log(`demo against ${baseUrl}`);
  const operator = createSpotClient({ baseUrl, headers: { authorization: `Bearer ${await operatorToken()}` } });
  const seller = await onboard('seller', operator);
  const buyer = await onboard('buyer', operator);

  const ask = ok(
    'ask',
    await seller.api.POST('/v1/orders', {
      body: { order: { symbol: SYMBOL, side: 'SELL', baseQty: '1.5', clientOrderId: `demo-ask-${Date.now()}`, limitGtc: { price: '2500' } } },
    }),
  );
  const askId = ask.orderId;
  console.log(`seller: placed SELL 1.5 ${SYMBOL} at 2500 (order ${askId})`);
  const subscription = subscribeOrderUpdates(seller.sessionToken, (u) => u.orderId === askId && u.status === 'FILLED');

  const book = ok('order book', await buyer.api.GET('/v1/spot/orderbook', { params: { query: { symbol: SYMBOL } } }));
  console.log(`order book of ${SYMBOL}: ${JSON.stringify(book)}`);

  ok(
    'bid',
    await buyer.api.POST('/v1/orders', {
      body: { order: { symbol: SYMBOL, side: 'BUY', baseQty: '1.5', clientOrderId: `demo-bid-${Date.now()}`, limitIoc: { price: '2600' } } },
    }),
  );
  console.log(`buyer: placed BUY 1.5 ${SYMBOL} up to 2600 (immediate or cancel)`);

  const updates = await withTimeout(subscription.done, 30_000, 'the subscription did not show the fill');
  await subscription.close();
  console.log(`subscription: ${updates.length} order updates received`);

  for (const who of [seller, buyer]) {
    const trades = ok('trades', await who.api.GET('/v1/spot/trades', { params: { query: { symbol: SYMBOL } } }));
    for (const t of trades.trades) {
      console.log(`${who.name}: fill #${t.matchId} ${t.side} ${t.qty} ${SYMBOL} at ${t.price}, fee ${t.fee} USDC (${t.isMaker ? 'maker' : 'taker'})`);
    }
    const balances = ok('balances', await who.api.GET('/v1/balances'));
    for (const b of balances.balances) console.log(`${who.name}: ${b.ledgerAccount} ${b.asset} available ${b.available}, held ${b.held}`);
  }
  const after = ok('order book', await buyer.api.GET('/v1/spot/orderbook', { params: { query: { symbol: SYMBOL } } }));
  console.log(`order book of ${SYMBOL} after the trade: ${JSON.stringify(after)}`);
  console.log('demo finished');
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
