import fc from 'fast-check';
import { expect } from 'vitest';
import { formatScaled, parseScaled } from '../../src/domain/money.ts';
import { EXTERNAL_NETWORKS, MIN_DEPOSIT } from '../../src/domain/networks.ts';
import { api, onboard, type ClientKey, type SignedIn } from './auth.ts';
import { TEST_OPERATOR_TOKEN } from './infra.ts';
import { keyFor } from './rooms.ts';
import { credit, ledgerViolations, placeOrder, SOUND_LEDGER } from './trading.ts';
import { pollUntil } from './wait.ts';
import { liftKey, payload, withdrawWithKey } from './withdraw.ts';

/**
 * Issue 26: the chain flows as a model, over a server in this process or a child process
 * it SIGKILLs (test/integration/chain-model.test.ts, test/e2e/chain-model-kill.test.ts).
 * Random deposits, drops at any moment, withdrawals of both variants (To Funding of another
 * account, and to an external chain), the operator's rejects and drops, the owner's
 * cancels, trades of the deposited USDC into ETH whose proceeds then try to leave, time
 * moving past finality or not, and restarts racing a request. X starts with little or no
 * final USDC and every move out asks for a share of what X holds, so a deposit credited but
 * not final is often all that could leave. After every step:
 * - each deposit is credited at most once, once completed, never once dropped;
 * - every withdrawal hold is released or settled exactly once;
 * - the ledger balances per asset (and holds match what is open);
 * - no route moved a deposit off the account before its finality: X's available USDC is
 *   never below the deposits credited less than the lock ago.
 * And at every move out the model knows the answer from the balances and credits it read
 * before: a move the lock must stop is refused DEPOSIT_NOT_FINAL, one it cannot stop is
 * accepted, one beyond the balance is INSUFFICIENT_BALANCE; and any refusal moves nothing.
 */

/** What the model runs against: the service in this process, or a child process. */
export interface Target {
  /** The server's base URL now (an in-process restart listens on another port). */
  url(): string;
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
  /** The withdrawal holds the engine has in memory, where the engine runs in this process. */
  memoryHolds?(): Promise<Set<string>>;
  /** Returns once the tables hold every job the engine applied before the call. */
  caughtUp(): Promise<void>;
  /** The server's clock, in ms. */
  now(): number;
  /** Takes the server's time past every lock running now. */
  finality(lockMs: number): Promise<void>;
  /** Ends the server (closed, or SIGKILLed) and starts it again on the same database. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export type KillPoint = 'idle' | 'drop' | 'withdraw' | 'deposit';
export type Step =
  | { k: 'deposit'; amount: number; settle: boolean }
  | { k: 'dropDeposit'; i: number }
  | { k: 'toTrading'; part: number }
  | { k: 'external' | 'toY'; part: number; pull: boolean }
  | { k: 'yOut'; part: number }
  | { k: 'tradeOut'; part: number; route: 'external' | 'toY' }
  | { k: 'reject' | 'dropWithdraw' | 'cancel'; i: number }
  | { k: 'finality' }
  | { k: 'wait'; ms: number }
  | { k: 'restart'; point: KillPoint; delayMs: number };

export interface World {
  x: SignedIn;
  y: SignedIn;
  xKey: ClientKey;
  yKey: ClientKey;
  xId: bigint;
  yId: bigint;
  yAddress: string;
  address: string;
  deposits: string[];
  dropped: Set<string>;
  withdrawals: string[];
  counts: Record<string, number>;
}

type Balances = Record<string, { available: bigint; held: bigint }>;
interface Snapshot {
  x: Balances;
  y: Balances;
  intents: number;
  orders: number;
  /** X's deposit credits: amount and the crediting job's time, which starts its lock. */
  credits: { amount: bigint; atMs: number }[];
}

const USDC = 4;
const ETH = 2;
const E18 = 10n ** 18n;
const PRICE = 500n;
const ethereum = ((n) => {
  if (!n) throw new Error('no Ethereum network');
  return n;
})(EXTERNAL_NETWORKS.get(1));
const feeOf = (symbol: string) => parseScaled(ethereum.assets.find((a) => a.symbol === symbol)?.withdrawFee ?? '0', 18, 'fee', { allowZero: true });
const USDC_FEE = feeOf('USDC');
const ETH_FEE = feeOf('ETH');
const ETH_MIN = parseScaled(MIN_DEPOSIT.ETH ?? '0', 18, 'min');
const EXTERNAL = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
// The engine's job times come from its nanosecond clock, which may stand a few ms off the millisecond one read here.
const SKEW_MS = 50;
const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const bal = (b: Balances, ledger: 'TRADING' | 'FUNDING', asset: number) => b[`${ledger}:${asset}`] ?? { available: 0n, held: 0n };
const whole = (e18: bigint) => (e18 / E18) * E18;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const pick = <T>(list: T[], i: number) => (list.length === 0 ? undefined : list[i % list.length]);
const tally = (w: World, what: string) => (w.counts[what] = (w.counts[what] ?? 0) + 1);
const answer = (r: { status: number; body: { code?: string } | undefined }) => (r.status === 200 ? 'accepted' : (r.body?.code ?? String(r.status)));

export class ChainModel {
  /** Blocks from a deposit's credit (12 confirmations) to its finality (64) on Ethereum. */
  readonly lockMs: number;
  private txs = 0;

  constructor(
    readonly t: Target,
    blockMs: number,
  ) {
    this.lockMs = (ethereum.withdrawConfirmations - ethereum.depositConfirmations) * blockMs;
  }

  private q<T>(text: string, values: unknown[] = []) {
    return this.t.query<T>(text, values);
  }

  /** X and Y, X with `initial` final USDC in Trading; Y with an ask for X's trades to meet. */
  async world(initial: number): Promise<World> {
    const url = this.t.url();
    const [x, y] = [await onboard(url), await onboard(url)];
    const xKey = await keyFor(url, x, ['READ', 'WITHDRAW', 'TRADE']);
    const yKey = await keyFor(url, y, ['READ', 'WITHDRAW']);
    await liftKey(url, xKey.keyId);
    await liftKey(url, yKey.keyId);
    if (initial > 0) await credit(url, x.rootAccountId, 'USDC', String(initial));
    await credit(url, y.rootAccountId, 'ETH', '100');
    expect((await placeOrder(url, y, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '100', limitGtc: { price: String(PRICE) } })).status).toBe(200);
    const address = (await api(url, 'POST', '/v1/chain/deposit-addresses', { chainId: 1 }, x.auth)).body.depositAddress.depositAddress as string;
    const rows = await this.q<{ id: string; publicId: string; address: string }>(`SELECT id::text, "publicId", "smartAccountAddress" AS address FROM "Account" WHERE "publicId" IN ($1, $2)`, [x.rootAccountId, y.rootAccountId]);
    const row = (who: SignedIn) => rows.find((r) => r.publicId === who.rootAccountId) as (typeof rows)[number];
    return { x, y, xKey, yKey, xId: BigInt(row(x).id), yId: BigInt(row(y).id), yAddress: row(y).address.toLowerCase(), address, deposits: [], dropped: new Set(), withdrawals: [], counts: {} };
  }

  async step(w: World, s: Step): Promise<void> {
    switch (s.k) {
      case 'deposit':
        return this.deposit(w, s.amount, s.settle);
      case 'dropDeposit':
        return this.dropDeposit(w, s.i);
      case 'toTrading':
        return this.toTrading(w, s.part);
      case 'external':
      case 'toY':
        return this.outOfX(w, s.k, s.part, s.pull);
      case 'yOut':
        return this.yOut(w, s.part);
      case 'tradeOut':
        return this.tradeOut(w, s.part, s.route);
      case 'reject':
      case 'dropWithdraw':
        return this.failWithdrawal(w, s.k, s.i);
      case 'cancel':
        return this.cancel(w, s.i);
      case 'finality':
        return this.t.finality(this.lockMs);
      case 'wait':
        return sleep(s.ms);
      case 'restart':
        return this.restart(w, s.point, s.delayMs);
    }
  }

  private report(w: World, amount: number, txHash: string) {
    return api(this.t.url(), 'POST', '/operator/v1/chain/deposits', { chainId: 1, address: w.address, asset: 'USDC', amount: String(amount), txHash }, operator);
  }

  private nextTx(): string {
    this.txs += 1;
    return `0xc0de${process.pid.toString(16)}${this.txs.toString(16).padStart(6, '0')}`;
  }

  /** A deposit reported; with `settle`, the step lasts until it is credited (or dropped), the lock at its longest ahead. */
  private async deposit(w: World, amount: number, settle: boolean): Promise<void> {
    const r = await this.report(w, amount, this.nextTx());
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const flowId = r.body.flow.flowId as string;
    w.deposits.push(flowId);
    tally(w, 'deposit');
    if (!settle) return;
    await pollUntil(async () => (await this.q<{ open: boolean }>(`SELECT "isOpen" AS open FROM "LifecycleFlow" WHERE "publicId" = $1`, [flowId]))[0]?.open === false, 20_000, 50);
  }

  private async dropDeposit(w: World, i: number): Promise<void> {
    const flowId = pick(w.deposits, i);
    if (!flowId) return;
    const r = await api(this.t.url(), 'POST', '/operator/v1/chain/deposits/drop', { flowId }, operator);
    expect([200, 409], JSON.stringify(r.body)).toContain(r.status);
    if (r.status === 200) w.dropped.add(flowId);
    tally(w, `dropDeposit ${r.status}`);
  }

  /** X's own Funding to its Trading, `part` % of it: a move between its own ledgers, which the lock lets through. */
  private async toTrading(w: World, part: number): Promise<void> {
    const before = await this.snapshot(w);
    const amount = whole((bal(before.x, 'FUNDING', USDC).available * BigInt(part)) / 100n);
    if (amount === 0n) return;
    const r = await api(this.t.url(), 'POST', '/v1/transfers/internal', { asset: 'USDC', amount: formatScaled(amount, 18), fromLedger: 'FUNDING', toLedger: 'TRADING' }, w.x.auth);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }

  /** The server's clock as signed requests and deadlines must follow it (it runs ahead once a run skips to finality). */
  private withdraw(key: ClientKey, p: ReturnType<typeof payload>) {
    const now = this.t.now();
    return withdrawWithKey(this.t.url(), key, { ...p, deadlineTsSec: String(Math.floor(now / 1000) + 600) }, key.secretKey, String(now));
  }

  private outPayload(w: World, route: 'external' | 'toY', asset: number, amount: bigint) {
    return route === 'external'
      ? payload({ action: 'TO_EXTERNAL_CHAIN', amount: amount.toString(), assetId: asset, destinationChainId: '1', destinationAddress: EXTERNAL })
      : payload({ action: 'TO_FUNDING', amount: amount.toString(), assetId: asset, destinationAddress: w.yAddress });
  }

  /** What X's deposits lock at `atMs`, as the engine counts it: credited at ms, locked while the lock's end is ahead. */
  private locked(s: Snapshot, atMs: number): bigint {
    return s.credits.filter((c) => c.atMs + this.lockMs > atMs).reduce((sum, c) => sum + c.amount, 0n);
  }

  /** The balances and counts a move out changes, after the tables hold every job so far. */
  private async snapshot(w: World): Promise<Snapshot> {
    await this.t.caughtUp();
    const balances = async (accountId: bigint) => {
      const rows = await this.q<{ key: string; available: string; held: string }>(`SELECT "ledgerAccount"::text || ':' || "assetId" AS key, available::text, held::text FROM "Balance" WHERE "accountId" = $1::bigint`, [accountId.toString()]);
      return Object.fromEntries(rows.map((r) => [r.key, { available: BigInt(r.available), held: BigInt(r.held) }]));
    };
    const [x, y, [n], credits] = await Promise.all([
      balances(w.xId),
      balances(w.yId),
      this.q<{ intents: number; orders: number }>(`SELECT (SELECT count(*)::int FROM "WithdrawIntent") AS intents, (SELECT count(*)::int FROM "Order" WHERE "accountId" = $1::bigint) AS orders`, [w.xId.toString()]),
      this.q<{ amount: string; ts: string }>(`SELECT amount::text, "timestampUs"::text AS ts FROM "LedgerTransferLeg" WHERE "accountId" = $1::bigint AND "transferCode" = 'DEPOSIT' AND "flowId" IS NOT NULL AND NOT "isDebit"`, [w.xId.toString()]),
    ]);
    return { x, y, intents: n?.intents ?? 0, orders: n?.orders ?? 0, credits: credits.map((c) => ({ amount: BigInt(c.amount), atMs: Number(BigInt(c.ts) / 1000n) })) };
  }

  /**
   * After a refusal: nothing left X, reached Y or was held (deposits may credit X's Funding
   * and blocks settle held withdrawals meanwhile, so those are not compared); a lock's refusal is counted.
   */
  private async refused(w: World, before: Snapshot, got: string): Promise<void> {
    if (got === 'accepted') return;
    if (got === 'DEPOSIT_NOT_FINAL') tally(w, 'lock bound');
    const after = await this.snapshot(w);
    const moved = (s: Snapshot) => ({
      xTrading: [USDC, ETH].map((a) => bal(s.x, 'TRADING', a).available),
      yFunding: [USDC, ETH].map((a) => bal(s.y, 'FUNDING', a).available),
      intents: s.intents,
      orders: s.orders,
    });
    expect(moved(after), `a ${got} refusal moved money`).toEqual(moved(before));
    for (const a of [USDC, ETH]) expect(bal(after.x, 'TRADING', a).held <= bal(before.x, 'TRADING', a).held, `a ${got} refusal held ${a}`).toBe(true);
  }

  /**
   * X's USDC off the account, `part` % of its Trading (with `pull`, all its Funding moved
   * there first, credited deposits included): the answer is known from the
   * balances and the credits read before (a credit landing meanwhile adds as much to Funding
   * as to the lock), bounded by the lock at the request's start and at its answer.
   */
  private async outOfX(w: World, route: 'external' | 'toY', part: number, pull: boolean): Promise<void> {
    if (pull) await this.toTrading(w, 100);
    const before = await this.snapshot(w);
    const trading = bal(before.x, 'TRADING', USDC).available;
    const funding = bal(before.x, 'FUNDING', USDC).available;
    const fee = route === 'external' ? USDC_FEE : 0n;
    const need = [whole((trading * BigInt(part)) / 100n), fee + E18].reduce((a, b) => (a > b ? a : b));
    const t0 = this.t.now();
    const r = await this.withdraw(w.xKey, this.outPayload(w, route, USDC, need - fee));
    const t1 = this.t.now();
    const got = answer(r);
    const kept = trading + funding - need;
    // The lock only lifts with time: at least what is locked at the answer, at most what was at the start.
    const [least, most] = [this.locked(before, t1 + SKEW_MS), this.locked(before, t0 - SKEW_MS)];
    const must = need > trading ? 'INSUFFICIENT_BALANCE' : kept < least ? 'DEPOSIT_NOT_FINAL' : kept >= most ? 'accepted' : undefined;
    const why = `${route} of ${formatScaled(need, 18)} with ${formatScaled(trading, 18)} in Trading, ${formatScaled(funding, 18)} in Funding, ${formatScaled(least, 18)}..${formatScaled(most, 18)} locked: ${JSON.stringify(r.body)}`;
    if (must) expect(got, why).toBe(must);
    else expect(['accepted', 'DEPOSIT_NOT_FINAL'], why).toContain(got);
    await this.refused(w, before, got);
    if (got === 'accepted' && route === 'external') w.withdrawals.push(r.body.intentId);
    tally(w, `${route} ${got}`);
  }

  /** Y spends what X sent it (the second half of the bypass issue 26 found): no lock of Y's, so only its balance decides. */
  private async yOut(w: World, part: number): Promise<void> {
    const funding = bal((await this.snapshot(w)).y, 'FUNDING', USDC).available;
    if (funding > 0n) expect((await api(this.t.url(), 'POST', '/v1/transfers/internal', { asset: 'USDC', amount: formatScaled(funding, 18), fromLedger: 'FUNDING', toLedger: 'TRADING' }, w.y.auth)).status).toBe(200);
    const before = await this.snapshot(w);
    const trading = bal(before.y, 'TRADING', USDC).available;
    const need = [whole((trading * BigInt(part)) / 100n), USDC_FEE + E18].reduce((a, b) => (a > b ? a : b));
    const r = await this.withdraw(w.yKey, this.outPayload(w, 'external', USDC, need - USDC_FEE));
    const got = answer(r);
    expect(got, JSON.stringify(r.body)).toBe(need > trading ? 'INSUFFICIENT_BALANCE' : 'accepted');
    if (got === 'accepted') w.withdrawals.push(r.body.intentId);
    tally(w, `yOut ${got}`);
  }

  /**
   * All of X's Funding to Trading, `part` % of its Trading USDC into ETH (an IOC against Y's
   * ask), then the ETH bought out by `route`. The trade spends at least its notional, so it
   * may be accepted only if what stays covers the lock; its proceeds bear no lock and leave.
   */
  private async tradeOut(w: World, part: number, route: 'external' | 'toY'): Promise<void> {
    await this.toTrading(w, 100);
    const before = await this.snapshot(w);
    const trading = bal(before.x, 'TRADING', USDC).available;
    const funding = bal(before.x, 'FUNDING', USDC).available;
    // ETH-USDC quantities have 5 decimals; the market's minimum notional is 1 USDC (0.002 ETH at 500).
    const qty = [(trading * BigInt(part) * 100_000n) / (100n * PRICE * E18), 200n].reduce((a, b) => (a > b ? a : b));
    const notional = (qty * PRICE * E18) / 100_000n;
    const r = await placeOrder(this.t.url(), w.x, { symbol: 'ETH-USDC', side: 'BUY', baseQty: formatScaled(qty, 5), limitIoc: { price: String(PRICE) } });
    const t1 = this.t.now();
    const got = answer(r);
    expect(['accepted', 'DEPOSIT_NOT_FINAL', 'INSUFFICIENT_BALANCE'], JSON.stringify(r.body)).toContain(got);
    if (got === 'accepted') expect(trading + funding - notional >= this.locked(before, t1 + SKEW_MS), `a trade of ${formatScaled(notional, 18)} USDC took locked value`).toBe(true);
    await this.refused(w, before, got);
    tally(w, `trade ${got}`);
    if (got !== 'accepted') return;
    const eth = bal((await this.snapshot(w)).x, 'TRADING', ETH).available;
    const fee = route === 'external' ? ETH_FEE : 0n;
    if (eth - fee < ETH_MIN) return;
    const out = await this.withdraw(w.xKey, this.outPayload(w, route, ETH, eth - fee));
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    if (route === 'external') w.withdrawals.push(out.body.intentId);
    tally(w, `proceeds ${route} accepted`);
  }

  private async failWithdrawal(w: World, how: 'reject' | 'dropWithdraw', i: number): Promise<void> {
    const flowId = pick(w.withdrawals, i);
    if (!flowId) return;
    const r = await api(this.t.url(), 'POST', `/operator/v1/chain/withdrawals/${how === 'reject' ? 'reject' : 'drop'}`, { flowId }, operator);
    expect([200, 409], JSON.stringify(r.body)).toContain(r.status);
    tally(w, `${how} ${r.status}`);
  }

  private async cancel(w: World, i: number): Promise<void> {
    const intentId = pick(w.withdrawals, i);
    if (!intentId) return;
    const [who] = await this.q<{ mine: boolean }>(`SELECT "accountId" = $1::bigint AS mine FROM "WithdrawIntent" WHERE "publicId" = $2`, [w.xId.toString(), intentId]);
    const r = await api(this.t.url(), 'POST', `/v1/chain/trading-withdraws/${intentId}/cancel`, undefined, who?.mine === false ? w.y.auth : w.x.auth);
    expect([200, 404, 409], JSON.stringify(r.body)).toContain(r.status);
    tally(w, `cancel ${r.status}`);
  }

  /**
   * A request in flight when the server stops (`delayMs` after it was sent), then a start on
   * the same database. What it acknowledged must be there after the start; what it did not
   * may or may not be, and the model follows whichever happened.
   */
  private async restart(w: World, point: KillPoint, delayMs: number): Promise<void> {
    const racing = await this.racer(w, point);
    await sleep(delayMs);
    await this.t.stop();
    await racing.sent;
    await this.t.start();
    await this.t.caughtUp();
    await racing.after();
    tally(w, `restart ${point}`);
  }

  private async racer(w: World, point: KillPoint): Promise<{ sent: Promise<unknown>; after: () => Promise<void> }> {
    const none = { sent: Promise.resolve(), after: async () => undefined };
    if (point === 'drop') {
      const flowId = pick(w.deposits, this.txs);
      if (!flowId) return none;
      const sent = api(this.t.url(), 'POST', '/operator/v1/chain/deposits/drop', { flowId }, operator).then((r) => r.status === 200 && w.dropped.add(flowId), () => undefined);
      return { sent, after: async () => undefined };
    }
    if (point === 'deposit') {
      const txHash = this.nextTx();
      let acked: string | undefined;
      const sent = this.report(w, 50, txHash).then((r) => (acked = r.status === 200 ? r.body.flow.flowId : undefined), () => undefined);
      const after = async () => {
        const [row] = await this.q<{ id: string }>(`SELECT "publicId" AS id FROM "LifecycleFlow" WHERE "sourceTxHash" = $1`, [txHash]);
        if (acked) expect(row?.id, 'an acknowledged deposit report was lost').toBe(acked);
        if (row) w.deposits.push(row.id);
      };
      return { sent, after };
    }
    if (point === 'withdraw') {
      const trading = bal((await this.snapshot(w)).x, 'TRADING', USDC).available;
      const p = this.outPayload(w, 'external', USDC, [whole(trading / 2n), E18].reduce((a, b) => (a > b ? a : b)));
      let acked: string | undefined;
      const sent = this.withdraw(w.xKey, p).then((r) => (acked = r.status === 200 ? r.body.intentId : undefined), () => undefined);
      const after = async () => {
        const [row] = await this.q<{ id: string }>(`SELECT "publicId" AS id FROM "WithdrawIntent" WHERE "accountId" = $1::bigint AND "idempotencyKey" = $2`, [w.xId.toString(), p.idempotencyKey]);
        if (acked) expect(row?.id, 'an acknowledged withdrawal was lost').toBe(acked);
        if (row) w.withdrawals.push(row.id);
      };
      return { sent, after };
    }
    return none;
  }

  /** The invariants, from one state of the tables (and of the engine's memory, where it runs in this process). */
  async check(w: World): Promise<void> {
    // Memory first, then the tables once they hold every job applied by then: blocks run meanwhile, so a
    // hold memory has must have an open intent or one ended since, and one it lacks an intent ended.
    const holds = await this.t.memoryHolds?.();
    await this.t.caughtUp();
    expect(await ledgerViolations((text) => this.q(text))).toEqual(SOUND_LEDGER);
    // Deposits: at most one credit each, exactly one once completed, none unless completed.
    const deposits = await this.q<{ flowId: string; state: string; credits: number }>(
      `SELECT f."publicId" AS "flowId", f."flowState"::text AS state, (SELECT count(*)::int FROM "LedgerTransfer" t WHERE t."flowId" = f.id AND t."transferCode" = 'DEPOSIT') AS credits
         FROM "LifecycleFlow" f WHERE f."flowKind" = 'DEPOSIT' AND f."ownerAccountId" = $1::bigint`,
      [w.xId.toString()],
    );
    for (const d of deposits) {
      expect([d.flowId, d.credits]).toEqual([d.flowId, d.state === 'COMPLETED' ? 1 : 0]);
      if (w.dropped.has(d.flowId)) expect([d.flowId, d.state]).toEqual([d.flowId, 'DROPPED']);
    }
    // Withdrawals: an open intent holds, once; an ended one holds nothing; only a completed one was debited, once.
    const intents = await this.q<{ id: string; status: string; flowState: string; isOpen: boolean; debits: number }>(
      `SELECT i.id::text, i.status::text, f."flowState"::text AS "flowState", f."isOpen",
              (SELECT count(*)::int FROM "LedgerTransfer" t WHERE t."flowId" = f.id AND t."transferCode" = 'WITHDRAW') AS debits
         FROM "WithdrawIntent" i JOIN "LifecycleFlow" f ON f.id = i."flowId" WHERE i.action = 'TO_EXTERNAL_CHAIN' AND i."accountId" IN ($1::bigint, $2::bigint)`,
      [w.xId.toString(), w.yId.toString()],
    );
    const flowFor: Record<string, string> = { COMPLETED: 'COMPLETED', REJECTED: 'REJECTED', CANCELED: 'FAILED', EXPIRED: 'EXPIRED' };
    for (const i of intents) {
      const open = ['ACCEPTED', 'PROCESSING', 'SUBMITTED'].includes(i.status);
      expect([i.id, i.status, open && holds !== undefined && !holds.has(i.id), i.isOpen, i.debits]).toEqual([i.id, i.status, false, open, i.status === 'COMPLETED' ? 1 : 0]);
      if (flowFor[i.status]) expect([i.id, i.flowState]).toEqual([i.id, flowFor[i.status]]);
    }
    // Finality: one snapshot of X's USDC and its credits; every deposit credited less than the lock ago is still there.
    const [snap] = await this.q<{ available: string; credits: { amount: string; ts: string }[] | null }>(
      `SELECT (SELECT COALESCE(sum(available), 0)::text FROM "Balance" WHERE "accountId" = $1::bigint AND "assetId" = ${USDC}) AS available,
              (SELECT json_agg(json_build_object('amount', l.amount::text, 'ts', l."timestampUs"::text)) FROM "LedgerTransferLeg" l
                WHERE l."accountId" = $1::bigint AND l."transferCode" = 'DEPOSIT' AND l."flowId" IS NOT NULL AND NOT l."isDebit") AS credits`,
      [w.xId.toString()],
    );
    const after = BigInt(this.t.now() - this.lockMs + SKEW_MS) * 1000n;
    const locked = (snap?.credits ?? []).filter((c) => BigInt(c.ts) > after).reduce((s, c) => s + BigInt(c.amount), 0n);
    expect(BigInt(snap?.available ?? '0') >= locked, `available ${snap?.available} below the ${locked} not yet final`).toBe(true);
  }

  /** Every flow of the world ended (blocks run on their own), then the same checks. */
  async settle(w: World): Promise<void> {
    const open = async () => (await this.q<{ n: number }>(`SELECT count(*)::int AS n FROM "LifecycleFlow" WHERE "isOpen" AND "ownerAccountId" IN ($1::bigint, $2::bigint)`, [w.xId.toString(), w.yId.toString()]))[0]?.n ?? 0;
    await pollUntil(async () => (await open()) === 0, 30_000, 100);
    expect(await open(), 'flows still open after the run').toBe(0);
    await this.check(w);
  }
}

export type Weights = Record<Step['k'], number>;

/** Steps in proportions `weights`; moves out ask for a share (%) of what the account holds, up to a bit more than all. */
export function stepArbitrary(weights: Weights): fc.Arbitrary<Step> {
  const part = fc.integer({ min: 5, max: 110 });
  const steps: { arbitrary: fc.Arbitrary<Step>; weight: number }[] = [
    { arbitrary: fc.record({ k: fc.constant('deposit' as const), amount: fc.integer({ min: 5, max: 200 }), settle: fc.boolean() }), weight: weights.deposit },
    { arbitrary: fc.record({ k: fc.constant('dropDeposit' as const), i: fc.nat() }), weight: weights.dropDeposit },
    { arbitrary: fc.record({ k: fc.constant('toTrading' as const), part: fc.integer({ min: 30, max: 100 }) }), weight: weights.toTrading },
    { arbitrary: fc.record({ k: fc.constant('external' as const), part, pull: fc.boolean() }), weight: weights.external },
    { arbitrary: fc.record({ k: fc.constant('toY' as const), part, pull: fc.boolean() }), weight: weights.toY },
    { arbitrary: fc.record({ k: fc.constant('yOut' as const), part }), weight: weights.yOut },
    { arbitrary: fc.record({ k: fc.constant('tradeOut' as const), part, route: fc.constantFrom('external' as const, 'toY' as const) }), weight: weights.tradeOut },
    { arbitrary: fc.record({ k: fc.constant('reject' as const), i: fc.nat() }), weight: weights.reject },
    { arbitrary: fc.record({ k: fc.constant('dropWithdraw' as const), i: fc.nat() }), weight: weights.dropWithdraw },
    { arbitrary: fc.record({ k: fc.constant('cancel' as const), i: fc.nat() }), weight: weights.cancel },
    { arbitrary: fc.constant({ k: 'finality' as const }), weight: weights.finality },
    { arbitrary: fc.record({ k: fc.constant('wait' as const), ms: fc.integer({ min: 20, max: 700 }) }), weight: weights.wait },
    {
      // Either racing the request itself, or past its answer while blocks confirm (a deposit's credit lands about 12 blocks after its report).
      arbitrary: fc.record({ k: fc.constant('restart' as const), point: fc.constantFrom<KillPoint>('idle', 'drop', 'withdraw', 'deposit'), delayMs: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 300, max: 1500 })) }),
      weight: weights.restart,
    },
  ];
  return fc.oneof(...steps.filter((s) => s.weight > 0));
}

/**
 * A run known to do both what the short run must show, whatever the seed: the lock binds
 * (X's only USDC is a fresh deposit) and money moves (after finality).
 */
export const LOCK_EXAMPLE: { initial: number; steps: Step[] } = {
  initial: 0,
  steps: [
    { k: 'deposit', amount: 100, settle: true },
    { k: 'toTrading', part: 100 },
    { k: 'external', part: 90, pull: false },
    { k: 'tradeOut', part: 60, route: 'toY' },
    { k: 'toY', part: 50, pull: false },
    { k: 'finality' },
    { k: 'external', part: 30, pull: false },
    { k: 'tradeOut', part: 40, route: 'external' },
    { k: 'toY', part: 20, pull: false },
    { k: 'yOut', part: 50 },
    { k: 'deposit', amount: 80, settle: true },
    { k: 'restart', point: 'withdraw', delayMs: 0 },
    { k: 'external', part: 100, pull: false },
    { k: 'cancel', i: 0 },
  ],
};

/**
 * The same for a server whose clock cannot be skipped (a child process): no wait for
 * finality; 20 final USDC beside the deposit move out while the rest stays locked, then
 * SIGKILLs at the credit of a new deposit and at a withdrawal's acceptance.
 */
export const KILL_EXAMPLE: { initial: number; steps: Step[] } = {
  initial: 20,
  steps: [
    { k: 'deposit', amount: 100, settle: true },
    { k: 'toTrading', part: 100 },
    { k: 'external', part: 90, pull: false },
    { k: 'toY', part: 50, pull: false },
    { k: 'external', part: 10, pull: false },
    { k: 'tradeOut', part: 4, route: 'toY' },
    { k: 'restart', point: 'deposit', delayMs: 1200 },
    { k: 'restart', point: 'withdraw', delayMs: 0 },
    { k: 'dropDeposit', i: 1 },
    { k: 'cancel', i: 0 },
  ],
};

class Command implements fc.AsyncCommand<object, World> {
  constructor(
    readonly m: ChainModel,
    readonly s: Step,
  ) {}
  check = () => true;
  async run(_: object, w: World): Promise<void> {
    await this.m.step(w, this.s);
    await this.m.check(w);
  }
  toString = () => JSON.stringify(this.s);
}

/** Runs the model `runs` times (`example` first) of at most `steps` steps; answers what each step did, summed over the runs. */
export async function runModel(m: ChainModel, options: { runs: number; steps: number; weights: Weights; example: { initial: number; steps: Step[] } }): Promise<{ counts: Record<string, number>; steps: number }> {
  const counts: Record<string, number> = {};
  let steps = 0;
  const commands = fc.commands([stepArbitrary(options.weights).map((s) => new Command(m, s))], { maxCommands: options.steps, size: 'max' });
  await fc.assert(
    fc.asyncProperty(fc.constantFrom<number>(0, 5, 20), commands, async (initial, cmds) => {
      // A short run is two runs, the example and one random: the random one is not left with next to nothing to do (the example passes).
      fc.pre([...cmds].length >= Math.min(Math.ceil(options.steps / 3), options.example.steps.length));
      const w = await m.world(initial);
      await fc.asyncModelRun(() => ({ model: {}, real: w }), cmds);
      await m.settle(w);
      steps += [...cmds].length;
      for (const [k, n] of Object.entries(w.counts)) counts[k] = (counts[k] ?? 0) + n;
    }),
    { numRuns: options.runs, endOnFailure: true, examples: [[options.example.initial, options.example.steps.map((s) => new Command(m, s))]] },
  );
  return { counts, steps };
}
