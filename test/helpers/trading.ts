import { api, liftLimits, signIn, type SignedIn } from './auth.ts';
import { TEST_OPERATOR_TOKEN } from './infra.ts';

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
