import { expect } from 'vitest';
import { api, liftLimits, newKeyPair, signIn, type ClientKey, type SignedIn } from './auth.ts';
import { TEST_OPERATOR_TOKEN } from './infra.ts';
import { pollUntil } from './wait.ts';

const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };

/** Credits an account through the operator API (a DEPOSIT transfer). */
export async function credit(baseUrl: string, accountId: string, asset: string, amount: string, ledgerAccount: 'TRADING' | 'FUNDING' = 'TRADING') {
  const r = await api(baseUrl, 'POST', '/operator/v1/credits', { accountId, asset, amount, ledgerAccount }, operator);
  if (r.status !== 200) throw new Error(`credit: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A signed-in trader with funds and lifted placement quotas. */
export async function trader(baseUrl: string, funds: Record<string, string>): Promise<SignedIn> {
  const who = await signIn(baseUrl);
  await liftLimits(baseUrl, who.rootAccountId, ['TRADING_PLACE', 'TRADING_CANCEL', 'INTERNAL_TRANSFER', 'ACCOUNT_ADMIN']);
  for (const [asset, amount] of Object.entries(funds)) await credit(baseUrl, who.rootAccountId, asset, amount);
  return who;
}

export async function placeOrder(baseUrl: string, who: SignedIn, order: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return api(baseUrl, 'POST', '/v1/orders', { order, ...extra }, who.auth);
}

export async function balancesOf(baseUrl: string, who: SignedIn, subaccountId?: string) {
  const r = await api(baseUrl, 'GET', `/v1/balances${subaccountId ? `?subaccountId=${subaccountId}` : ''}`, undefined, who.auth);
  const out: Record<string, { available: string; held: string }> = {};
  for (const b of r.body.balances as { ledgerAccount: string; asset: string; available: string; held: string }[]) {
    out[`${b.ledgerAccount}:${b.asset}`] = { available: b.available, held: b.held };
  }
  return out;
}

type Query = <T>(text: string) => Promise<T[]>;

/**
 * Waits until the read tables reflect every trading journal entry: they are projected
 * behind the acknowledgement, so a test reading them directly (not through the API,
 * whose reads wait by themselves) waits first.
 */
export async function projected(query: Query, timeoutMs = 5000): Promise<void> {
  await pollUntil(async () => {
    const [r] = await query<{ behind: boolean }>(
      `SELECT COALESCE((SELECT max(seq) FROM "TradingJournal"), 0) > COALESCE((SELECT seq FROM "ProjectionWatermark" WHERE name = 'trading'), 0) AS behind`,
    );
    return r?.behind === false;
  }, timeoutMs);
}

/**
 * What breaks the ledger's invariants, read from the database: assets whose legs do not
 * sum to zero, balances that differ from the sum of their legs, negative balances of
 * non-system accounts, and TRADING holds that differ from what open orders reserve.
 * All empty when sound.
 */
export async function ledgerViolations(query: Query) {
  await projected(query);
  const unbalanced = await query<{ assetId: number; net: string }>(
    `SELECT "assetId", sum(CASE WHEN "isDebit" THEN -amount ELSE amount END)::text AS net
     FROM "LedgerTransferLeg" GROUP BY 1 HAVING sum(CASE WHEN "isDebit" THEN -amount ELSE amount END) <> 0`,
  );
  const drift = await query<{ id: string }>(
    `SELECT b.id::text FROM "Balance" b LEFT JOIN (
       SELECT "accountId", "ledgerAccount", "assetId", sum(CASE WHEN "isDebit" THEN -amount ELSE amount END) AS net
       FROM "LedgerTransferLeg" GROUP BY 1, 2, 3) l
       ON l."accountId" = b."accountId" AND l."ledgerAccount" = b."ledgerAccount" AND l."assetId" = b."assetId"
     WHERE b.available + b.held <> COALESCE(l.net, 0)`,
  );
  const negative = await query<{ id: string }>(
    `SELECT b.id::text FROM "Balance" b JOIN "Account" a ON a.id = b."accountId" WHERE a.kind <> 'SYSTEM' AND (b.available < 0 OR b.held < 0)`,
  );
  const holds = await query<{ id: string }>(
    `SELECT b.id::text FROM "Balance" b LEFT JOIN (
       SELECT o."accountId", CASE WHEN o.side = 'BUY' THEN m."quoteAssetId" ELSE m."baseAssetId" END AS asset, sum(o."heldE18") AS held
       FROM "Order" o JOIN "Market" m ON m."symbolId" = o."symbolId" WHERE o."isOpen" GROUP BY 1, 2) o
       ON o."accountId" = b."accountId" AND o.asset = b."assetId"
     LEFT JOIN (
       SELECT "accountId", "assetId", sum(amount + fee) AS held FROM "WithdrawIntent"
       WHERE status IN ('ACCEPTED', 'PROCESSING', 'SUBMITTED') GROUP BY 1, 2) w
       ON w."accountId" = b."accountId" AND w."assetId" = b."assetId"
     WHERE b."ledgerAccount" = 'TRADING' AND b.held <> COALESCE(o.held, 0) + COALESCE(w.held, 0)`,
  );
  return { unbalanced, drift, negative, holds };
}

/** `ledgerViolations` of a sound ledger. */
export const SOUND_LEDGER = { unbalanced: [], drift: [], negative: [], holds: [] };

/** A good-till-canceled limit order on BTC-USDC. */
export const gtc = (side: 'BUY' | 'SELL', qty: string, price: string, extra: Record<string, unknown> = {}) => ({ symbol: 'BTC-USDC', side, baseQty: qty, limitGtc: { price }, ...extra });
/** An immediate-or-cancel limit order on BTC-USDC. */
export const ioc = (side: 'BUY' | 'SELL', qty: string, price: string) => ({ symbol: 'BTC-USDC', side, baseQty: qty, limitIoc: { price } });

/** Prints a trade at `price` between two fresh accounts: the last price triggers watch. */
export async function printTrade(url: string, price: string) {
  const maker = await trader(url, { BTC: '1' });
  const taker = await trader(url, { USDC: '100000' });
  expect((await placeOrder(url, maker, gtc('SELL', '0.01', price))).status).toBe(200);
  expect((await placeOrder(url, taker, ioc('BUY', '0.01', price))).status).toBe(200);
}

/** An API key of `who` allowed to trade: what a bot signs its requests with. */
export async function tradingKey(url: string, who: SignedIn): Promise<ClientKey> {
  const terms = await api(url, 'GET', '/v1/auth/terms', undefined, who.auth);
  await api(url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, who.auth);
  const policy = await api(url, 'POST', '/v1/auth/api-policies', { name: 'bot', permissions: ['READ', 'TRADE'] }, who.auth);
  const pair = newKeyPair();
  const created = await api(url, 'POST', '/v1/auth/api-keys', { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId }, who.auth);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { keyId: created.body.apiKey.keyId, ...pair };
}
