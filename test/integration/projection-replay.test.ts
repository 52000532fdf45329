import fc from 'fast-check';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionCaller } from '../../src/auth/caller.ts';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { INT64_MAX, MAX_LEDGER_AMOUNT_E18 } from '../../src/domain/money.ts';
import type { EngineMemory } from '../../src/services/trading/engine.ts';
import { Journal } from '../../src/services/trading/journal.ts';
import { ORDER_COLUMNS, SWITCH_COLUMNS, TRIGGER_COLUMNS, type Columns, type SqlType } from '../../src/services/trading/persist.ts';
import { Projector } from '../../src/services/trading/projector.ts';
import { OPEN_WITHDRAW_STATUSES } from '../../src/services/trading/withdrawals.ts';
import { liftLimits, onboard, type SignedIn } from '../helpers/auth.ts';
import { shiftableClock } from '../helpers/clock.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { startTestApp, testDatabase, testStore, type RunningApp } from '../helpers/infra.ts';
import { ledgerViolations, SOUND_LEDGER } from '../helpers/trading.ts';
import { payloadBytes, walletSignature } from '../helpers/withdraw.ts';

/**
 * Projection equals replay (issue 22): a long random mix of commands through the
 * transport-neutral services, then three views of the trading state that must agree:
 * (a) the tables the projector wrote as the engine acknowledged each entry, (b) the same
 * tables rebuilt from the journal alone into a fresh schema, in other batches, and (c) the
 * engine's memory. DIFF_COMMANDS and DIFF_SEED run a longer or another mix; a failure
 * names its seed.
 */
const COMMANDS = Number(process.env.DIFF_COMMANDS ?? 250);
const SEED = Number(process.env.DIFF_SEED ?? 20261127);

const BLOCK_MS = 1_000;
const USDC = 4;
const E18 = 10n ** 18n;
const EXTERNAL = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const INT32_MAX = 2_147_483_647;
const U128_MAX = 2n ** 128n - 1n;
/** The largest price a body can give: INT64_MAX nano-units, down to SOL-USDC's tick (0.001). */
const MAX_PRICE = ((INT64_MAX / 1_000_000n) * 1_000_000n).toString().replace(/(\d{9})$/, '.$1');

// ---- Commands ----------------------------------------------------------------------------

const who = fc.nat(3);
const pick = fc.nat();
/** Prices in a narrow band (SOL-USDC ticks of 0.001, mostly whole units) so orders cross and triggers fire. */
const price = fc.oneof({ arbitrary: fc.integer({ min: 95, max: 105 }).map(String), weight: 6 }, { arbitrary: fc.integer({ min: 95_000, max: 105_000 }).map((n) => (n / 1000).toFixed(3)), weight: 1 });
const qty = fc.integer({ min: 10, max: 4_000 }).map((n) => (n / 1000).toFixed(3));
const side = fc.constantFrom('BUY' as const, 'SELL' as const);
const stp = fc.constantFrom('EXPIRE_MAKER' as const, 'EXPIRE_TAKER' as const, 'EXPIRE_BOTH' as const, 'DECREMENT' as const);
const child = fc.oneof(fc.constant({ marketIoc: {} }), price.map((p) => ({ limit: { price: p } })));
const slippage = fc.oneof(fc.record({ maxSlippageTicks: fc.integer({ min: 1, max: 5_000 }) }), fc.record({ maxSlippageBps: fc.integer({ min: 1, max: 10_000 }) }));
/** Mostly fresh, now and then one taken before (a duplicate, or a reuse after its order ended). */
const clientId = fc.option(fc.oneof({ weight: 1, arbitrary: fc.integer({ min: 0, max: 20 }) }, { weight: 6, arbitrary: fc.integer({ min: 21, max: 1_000_000 }) }).map((n) => `c${n}`), { nil: undefined });

const risk = fc.record(
  {
    oco: fc.boolean(),
    stopLoss: fc.record({ offset: fc.integer({ min: 1, max: 6 }), child }),
    takeProfit: fc.record({ offset: fc.integer({ min: 1, max: 6 }), child }),
    trailingStop: fc.tuple(
      fc.oneof(fc.record({ trailingDistanceTicks: fc.integer({ min: 1, max: 5_000 }).map(String) }), fc.record({ trailingDistanceBps: fc.integer({ min: 1, max: 500 }) })),
      slippage,
      fc.option(price, { nil: undefined }),
    ),
  },
  { requiredKeys: [] },
);

const variant = fc.constantFrom('gtc', 'gtd', 'ioc', 'postOnly', 'market', 'marketBps');

const command = fc.oneof(
  { weight: 150, arbitrary: fc.record({ k: fc.constant('place' as const), who, side, price, qty, variant, stp, quoteFee: fc.boolean(), clientOrderId: clientId, risk: fc.option(risk, { freq: 3, nil: undefined }), gtdSec: fc.integer({ min: 2, max: 600 }) }) },
  { weight: 40, arbitrary: fc.record({ k: fc.constant('cancel' as const), who, pick, byClientId: fc.boolean() }) },
  { weight: 30, arbitrary: fc.record({ k: fc.constant('modify' as const), who, pick, qty: fc.option(qty, { nil: undefined }), price: fc.option(price, { nil: undefined }) }) },
  { weight: 25, arbitrary: fc.record({ k: fc.constant('replace' as const), who, pick, qty, price, postOnly: fc.boolean() }) },
  { weight: 10, arbitrary: fc.record({ k: fc.constant('batchCancel' as const), who, picks: fc.oneof(fc.array(pick, { minLength: 1, maxLength: 6 }), fc.array(pick, { minLength: 50, maxLength: 50 })) }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('cancelAll' as const), who, side: fc.option(side, { nil: undefined }), symbol: fc.boolean() }) },
  {
    weight: 60,
    arbitrary: fc.record({
      k: fc.constant('trigger' as const),
      who,
      side,
      qty,
      clientTriggerId: clientId,
      kind: fc.constantFrom('stopLoss' as const, 'takeProfit' as const, 'trailingStop' as const, 'twap' as const, 'ladder' as const),
      price,
      child,
      slippage,
      trail: fc.oneof(fc.record({ trailingDistanceTicks: fc.integer({ min: 1, max: 5_000 }).map(String) }), fc.record({ trailingDistanceBps: fc.integer({ min: 1, max: 9_999 }) })),
      durationS: fc.integer({ min: 1, max: 600 }),
      slices: fc.integer({ min: 1, max: 20 }),
      levels: fc.integer({ min: 1, max: 8 }),
      span: fc.integer({ min: 0, max: 10 }),
    }),
  },
  { weight: 20, arbitrary: fc.record({ k: fc.constant('triggerControl' as const), who, pick, action: fc.constantFrom('pause' as const, 'resume' as const, 'cancel' as const), byClientId: fc.boolean() }) },
  { weight: 15, arbitrary: fc.record({ k: fc.constant('transfer' as const), who, asset: fc.constantFrom('SOL', 'USDC'), amount: fc.integer({ min: 1, max: 500 }).map(String), toTrading: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('credit' as const), who, asset: fc.constantFrom('SOL', 'USDC'), amount: fc.integer({ min: 1, max: 10_000 }).map(String), funding: fc.boolean() }) },
  { weight: 10, arbitrary: fc.record({ k: fc.constant('deposit' as const), who, amount: fc.integer({ min: 0, max: 3_000 }).map(String), asset: fc.constantFrom('USDC', 'USDC', 'SOL') }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('dropDeposit' as const), pick }) },
  { weight: 10, arbitrary: fc.record({ k: fc.constant('withdraw' as const), who, amount: fc.integer({ min: 1, max: 400 }), external: fc.boolean(), topNonce: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('failWithdraw' as const), pick, how: fc.constantFrom('REJECT' as const, 'DROP' as const) }) },
  { weight: 10, arbitrary: fc.record({ k: fc.constant('blocks' as const), n: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 10, arbitrary: fc.record({ k: fc.constant('deadMan' as const), who, longId: fc.boolean(), timeoutSec: fc.oneof(fc.constant(0), fc.integer({ min: 10, max: 120 })), side: fc.option(side, { nil: undefined }), symbol: fc.boolean() }) },
  { weight: 10, arbitrary: fc.record({ k: fc.constant('time' as const), seconds: fc.integer({ min: 1, max: 130 }) }) },
  { weight: 30, arbitrary: fc.record({ k: fc.constant('extreme' as const), who, which: fc.nat(), side }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('burst' as const), who: fc.array(who, { minLength: 2, maxLength: 5 }), side, price, qty }) },
  { weight: 2, arbitrary: fc.constant({ k: 'restart' as const }) },
);
type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

// ---- The exchange under test ----------------------------------------------------------

const shifted = shiftableClock();
let frozenAt: Date | undefined;
/**
 * The service's clock, moved by the commands, and stopped while the views are compared: the
 * service's own sweeps (GTD expiry, dead-man switches, TWAP slices, chain blocks) then find
 * nothing newly due, so nothing changes between reading one view and the next.
 */
const clock = {
  now: () => frozenAt ?? shifted.now(),
  nowNs: () => (frozenAt ? BigInt(frozenAt.getTime()) * 1_000_000n : shifted.nowNs()),
  skip: (ms: number) => shifted.skip(ms),
};
let database: Awaited<ReturnType<typeof testDatabase>>;
let store: Awaited<ReturnType<typeof testStore>>;
let server: RunningApp;
let replay: Awaited<ReturnType<typeof testDatabase>> | undefined;

const start = () => startTestApp({ database, store, clock, env: { CHAIN_BLOCK_MS: String(BLOCK_MS), LOG_LEVEL: 'warn' } });

beforeAll(async () => {
  database = await testDatabase();
  store = await testStore();
  server = await start();
}, 60_000);
afterAll(async () => {
  await server?.close();
  await replay?.drop();
  await store?.flush();
  await database?.drop();
});

interface Trader {
  signedIn: SignedIn;
  caller: SessionCaller;
  depositAddress: string;
  orders: string[];
  triggers: string[];
}

async function newTrader(): Promise<Trader> {
  const signedIn = await onboard(server.url);
  await liftLimits(server.url, signedIn.rootAccountId, ['TRADING_PLACE', 'TRADING_CANCEL', 'INTERNAL_TRANSFER', 'WITHDRAW_SUBMIT', 'DEPOSIT_CREATE']);
  const row = await database.prisma.account.findUniqueOrThrow({ where: { publicId: signedIn.rootAccountId } });
  const caller: SessionCaller = { kind: 'session', rootAccountId: row.id, rootPublicId: row.publicId, sessionId: 0n };
  const s = server.app.services;
  for (const [asset, amount] of [['SOL', '5000'], ['USDC', '500000']]) {
    await s.ledger.operatorCredit({ accountId: row.publicId, asset: asset as string, amount: amount as string, ledgerAccount: 'TRADING' });
    await s.ledger.operatorCredit({ accountId: row.publicId, asset: asset as string, amount: amount as string, ledgerAccount: 'FUNDING' });
  }
  const { depositAddress } = await s.chain.createDepositAddress(caller, { chainId: 1 });
  return { signedIn, caller, depositAddress: depositAddress.depositAddress, orders: [], triggers: [] };
}

const nth = <T>(list: T[], i: number): T | undefined => (list.length === 0 ? undefined : list[i % list.length]);

/** Mostly one of the account's open orders (as the engine has them), now and then any it ever placed. */
async function target(t: Trader, i: number): Promise<{ publicId: string; side: 'BUY' | 'SELL'; clientOrderId: string | null } | undefined> {
  const open = await server.app.services.orders.engine.openOrdersOf(t.caller.rootAccountId);
  const o = i % 5 !== 0 ? nth(open, i) : undefined;
  if (o) return o;
  const id = nth(t.orders, i);
  const row = id && (await database.prisma.order.findUnique({ where: { publicId: id } }));
  return row || undefined;
}

/** The extreme values each input accepts (the service-level bounds every transport shares). */
function extremeOrders(s: 'BUY' | 'SELL') {
  const base = { symbol: 'SOL-USDC', side: s, baseQty: '0.02' };
  // Fills against the book at once, so its legs arm.
  const crossing = s === 'BUY' ? '120' : '80';
  const cases = [
    // Price at its smallest tick (at its largest it trades there: see unstorableOrders).
    { ...base, baseQty: '1000', limitGtc: { price: '0.001', postOnly: true } },
    // Quantity at its largest: refused for funds, never half-applied.
    { ...base, baseQty: (INT64_MAX / 1000n).toString(), limitGtc: { price: '100' } },
    // Slippage at its bounds.
    { ...base, marketIoc: { maxSlippageTicks: INT32_MAX } },
    { ...base, side: 'SELL' as const, marketIoc: { maxSlippageBps: 10_000, clientRefPrice: MAX_PRICE } },
    { ...base, marketIoc: { maxSlippageTicks: 1, clientRefPrice: '0.001' } },
    // The longest client order id, of every printable character class.
    { ...base, baseQty: '2', clientOrderId: `~!"\\'${'x'.repeat(59)}`, limitGtc: { price: '1' } },
    // GTD at the far end of its window.
    { ...base, limitGtd: { price: '90', expireAt: new Date(clock.now().getTime() + 30 * 86_400_000 - 1_000).toISOString() } },
    // Attached legs at their widest: stop at the smallest tick, take-profit at the largest price.
    { ...base, limitGtc: { price: '100' }, attachedRisk: s === 'BUY' ? { oco: true, stopLoss: { triggerPrice: '0.001', child: { marketIoc: {} } }, takeProfit: { triggerPrice: MAX_PRICE, child: { limit: { price: MAX_PRICE } } } } : { oco: true, stopLoss: { triggerPrice: MAX_PRICE, child: { marketIoc: {} } }, takeProfit: { triggerPrice: '0.001', child: { limit: { price: '0.001' } } } } },
    // A trailing leg whose distance is as wide as a standalone trailing stop allows.
    { ...base, limitGtc: { price: crossing }, attachedRisk: { trailingStop: { trailingDistanceTicks: '999999999', maxSlippageBps: 10_000 } } },
    { ...base, limitGtc: { price: crossing }, attachedRisk: { trailingStop: { trailingDistanceBps: 9_999, maxSlippageTicks: INT32_MAX, activationPrice: MAX_PRICE } } },
    // Wider than a standalone trailing stop may be, as the order path accepts: 10^12 ticks of
    // 0.001 still leave the threshold inside a bigint; the largest int32 of bps too, at these prices.
    { ...base, limitGtc: { price: crossing }, attachedRisk: { trailingStop: { trailingDistanceTicks: '1000000000000', maxSlippageBps: 100 } } },
    { ...base, limitGtc: { price: crossing }, attachedRisk: { trailingStop: { trailingDistanceBps: INT32_MAX, maxSlippageBps: 100 } } },
    ...unstorableOrders(base, crossing),
  ];
  return cases;
}

function extremeTriggers(s: 'BUY' | 'SELL') {
  const base = { symbol: 'SOL-USDC', qty: '0.01' };
  const cases = [
    { ...base, stopLoss: { side: s, triggerPrice: MAX_PRICE, child: { marketIoc: { maxSlippageTicks: INT32_MAX } } } },
    { ...base, qty: '1000', takeProfit: { side: s, triggerPrice: '0.001', child: { marketIoc: { maxSlippageBps: 10_000 } } } },
    { ...base, trailingStop: { side: s, trailingDistanceTicks: '999999999', maxSlippageTicks: INT32_MAX } },
    { ...base, trailingStop: { side: s, trailingDistanceBps: 9_999, maxSlippageBps: 10_000, activationPrice: MAX_PRICE } },
    { ...base, qty: '1', twap: { side: s, durationMs: 86_400_000, intervalMs: 8_640, maxAdverseTicks: '999999999', limitPrice: MAX_PRICE } },
    { ...base, qty: '0.5', twap: { side: s, durationMs: 1_000, intervalMs: 1_000, maxAdverseBps: 9_999 } },
    { ...base, qty: '100000', ladder: { side: 'SELL' as const, levels: 50, minPrice: '0.001', maxPrice: '1000', distribution: 'LINEAR_INCREASING' as const } },
    { ...base, qty: '50', clientTriggerId: 'T'.repeat(64), ladder: { side: s, levels: 50, minPrice: '1', maxPrice: '1.049', postOnly: false } },
    ...unstorableTriggers(base, s),
  ];
  return cases;
}

/**
 * Inputs that once stopped the projection or split memory from the tables (issue 22): now
 * each is refused before the append, or stored within its columns' range. They stay in the
 * mix so any that slips back in fails here.
 */
function unstorableOrders(base: { symbol: string; side: 'BUY' | 'SELL'; baseQty: string }, crossing: string) {
  return [
    // The armed leg's threshold, 100 - 10^13 × 0.001, is below the bigint range: the projection stops.
    { ...base, limitGtc: { price: crossing }, attachedRisk: { trailingStop: { trailingDistanceTicks: '10000000000000', maxSlippageBps: 100 } } },
    { ...base, limitGtc: { price: crossing }, attachedRisk: { trailingStop: { trailingDistanceTicks: INT64_MAX.toString(), maxSlippageBps: 100 } } },
    // An order resting at the largest price trades there (a bid against any market sell; an
    // ask against a market buy whose reference is the best ask), and from then on values
    // computed from that last price leave the bigint range: a BUY trailing stop's threshold,
    // trough × (1 + bps/10000), was 18445821736504314600 in a 4000-command run (seed
    // 20261127), and the projection stopped.
    { ...base, limitGtc: { price: MAX_PRICE } },
    { ...base, side: 'BUY' as const, marketIoc: { maxSlippageBps: 10_000, clientRefPrice: MAX_PRICE } },
  ];
}
function unstorableTriggers(base: { symbol: string; qty: string }, s: 'BUY' | 'SELL') {
  return [
    // A lone surrogate is stored as U+FFFD while memory keeps it: memory and tables differ.
    { ...base, qty: '2', clientTriggerId: `lone\ud800${nonce}`, stopLoss: { side: s, triggerPrice: s === 'SELL' ? '1' : '1000', child: { marketIoc: {} } } },
    // Orders resting up to the largest price, as above.
    { ...base, stopLoss: { side: s, triggerPrice: s === 'SELL' ? '1' : '1000', child: { limit: { price: MAX_PRICE, postOnly: true } } } },
    { ...base, qty: '100000', ladder: { side: s, levels: 50, minPrice: '0.001', maxPrice: MAX_PRICE, distribution: 'LINEAR_INCREASING' as const } },
  ];
}

let flows: { id: string; kind: 'DEPOSIT' | 'WITHDRAW' }[] = [];
let nonce = BigInt(Date.now()) * 1000n;

async function run(c: Command, traders: Trader[]): Promise<void> {
  const s = server.app.services;
  const orders = s.orders;
  const t = traders[('who' in c && typeof c.who === 'number' ? c.who : 0) % traders.length] as Trader;
  switch (c.k) {
    case 'place': {
      const p = c.price;
      const order = {
        symbol: 'SOL-USDC',
        side: c.side,
        baseQty: c.qty,
        selfTradePreventionMode: c.stp,
        ...(c.side === 'BUY' ? { feeAsset: c.quoteFee ? ('QUOTE' as const) : ('BASE' as const) } : {}),
        ...(c.clientOrderId ? { clientOrderId: c.clientOrderId } : {}),
        ...(c.variant === 'gtc' ? { limitGtc: { price: p } }
        : c.variant === 'postOnly' ? { limitGtc: { price: p, postOnly: true } }
        : c.variant === 'gtd' ? { limitGtd: { price: p, expireAt: new Date(clock.now().getTime() + c.gtdSec * 1000).toISOString() } }
        : c.variant === 'ioc' ? { limitIoc: { price: p } }
        : c.variant === 'market' ? { marketIoc: { clientRefPrice: '100', maxSlippageTicks: 8_000 } }
        : { marketIoc: { maxSlippageBps: 800 } }),
      };
      const r = c.risk;
      const dir = c.side === 'BUY' ? 1 : -1;
      const attachedRisk = r && {
        ...(r.oco && r.stopLoss && r.takeProfit ? { oco: true } : {}),
        ...(r.stopLoss ? { stopLoss: { triggerPrice: String(Number(p) - dir * r.stopLoss.offset), child: r.stopLoss.child } } : {}),
        ...(r.takeProfit ? { takeProfit: { triggerPrice: String(Number(p) + dir * r.takeProfit.offset), child: r.takeProfit.child } } : {}),
        ...(r.trailingStop ? { trailingStop: { ...r.trailingStop[0], ...r.trailingStop[1], ...(r.trailingStop[2] ? { activationPrice: r.trailingStop[2] } : {}) } } : {}),
      };
      const placed = await orders.createOrder(t.caller, { order: { ...order, ...(attachedRisk && Object.keys(attachedRisk).length > 0 ? { attachedRisk } : {}) } });
      t.orders.push(placed.orderId);
      return;
    }
    case 'cancel': {
      const o = await target(t, c.pick);
      if (o) await orders.cancelOrder(t.caller, c.byClientId && o.clientOrderId ? { clientOrderId: o.clientOrderId } : { orderId: o.publicId });
      return;
    }
    case 'modify': {
      const o = await target(t, c.pick);
      if (o && (c.qty || c.price)) await orders.modifyOrder(t.caller, { orderId: o.publicId, ...(c.qty ? { newQty: c.qty } : {}), ...(c.price ? { newPrice: c.price } : {}) });
      return;
    }
    case 'replace': {
      const o = await target(t, c.pick);
      if (!o) return;
      const r = await orders.replaceOrder(t.caller, { orderId: o.publicId, order: { symbol: 'SOL-USDC', side: o.side, baseQty: c.qty, limitGtc: { price: c.price, postOnly: c.postOnly } } });
      t.orders.push(r.orderId);
      return;
    }
    case 'batchCancel': {
      const items = [];
      for (const i of c.picks) items.push({ orderId: (await target(t, i))?.publicId ?? 'NoSuchOrder' });
      await orders.batchCancelOrders(t.caller, { requestId: `b${nonce++}`.padEnd(items.length === 50 ? 128 : 0, '~'), items });
      return;
    }
    case 'cancelAll':
      await orders.cancelAllOrders(t.caller, { ...(c.symbol ? { symbol: 'SOL-USDC' } : {}), ...(c.side ? { side: c.side } : {}) });
      return;
    case 'trigger': {
      const common = { symbol: 'SOL-USDC', qty: c.qty, ...(c.clientTriggerId ? { clientTriggerId: c.clientTriggerId } : {}) };
      const block =
        c.kind === 'stopLoss' || c.kind === 'takeProfit' ? { [c.kind]: { side: c.side, triggerPrice: c.price, child: 'marketIoc' in c.child ? { marketIoc: c.slippage } : c.child } }
        : c.kind === 'trailingStop' ? { trailingStop: { side: c.side, ...c.trail, ...c.slippage } }
        : c.kind === 'twap' ? { twap: { side: c.side, durationMs: c.durationS * 1000, intervalMs: Math.max(250, Math.floor((c.durationS * 1000) / c.slices)), maxAdverseBps: 300 } }
        : { ladder: { side: c.side, levels: c.levels, minPrice: c.price, maxPrice: String(Number(c.price) + c.span + c.levels) } };
      const r = await orders.createTrigger(t.caller, { trigger: { ...common, ...block } });
      t.triggers.push(r.trigger.publicId);
      return;
    }
    case 'triggerControl': {
      // Mostly a live trigger of the account (from the engine), now and then any it ever created.
      const live = (await orders.engine.memory()).triggers.filter((g) => g.accountId === t.caller.rootAccountId);
      const row = c.pick % 5 !== 0 ? nth(live, c.pick) : await database.prisma.trigger.findUnique({ where: { publicId: nth(t.triggers, c.pick) ?? '' } });
      if (!row) return;
      const named = c.byClientId && row.clientTriggerId ? { clientTriggerId: row.clientTriggerId } : { triggerId: row.publicId };
      if (c.action === 'pause') await orders.pauseTrigger(t.caller, named);
      else if (c.action === 'resume') await orders.resumeTrigger(t.caller, named);
      else await orders.cancelTrigger(t.caller, named);
      return;
    }
    case 'transfer':
      await s.ledger.createInternalTransfer(t.caller, { asset: c.asset, amount: c.amount, fromLedger: c.toTrading ? 'FUNDING' : 'TRADING', toLedger: c.toTrading ? 'TRADING' : 'FUNDING' });
      return;
    case 'credit':
      await s.ledger.operatorCredit({ accountId: t.caller.rootPublicId, asset: c.asset, amount: c.amount, ledgerAccount: c.funding ? 'FUNDING' : 'TRADING' });
      return;
    case 'deposit': {
      const flow = await s.chain.observeDeposit({ chainId: 1, address: t.depositAddress, asset: c.asset, amount: c.amount === '0' ? '0.5' : c.amount, txHash: `0x${(nonce++).toString(16)}` });
      flows.push({ id: flow.flowId, kind: 'DEPOSIT' });
      return;
    }
    case 'dropDeposit': {
      const deposits = flows.filter((f) => f.kind === 'DEPOSIT');
      const f = nth(deposits, c.pick);
      if (f) await s.chain.dropDeposit({ flowId: f.id });
      return;
    }
    case 'withdraw': {
      nonce += 1n;
      const p = {
        action: c.external ? ('TO_EXTERNAL_CHAIN' as const) : ('TO_FUNDING' as const),
        amount: (BigInt(c.amount) * E18).toString(),
        assetId: USDC,
        deadlineTsSec: String(Math.floor(clock.now().getTime() / 1000) + 600),
        idempotencyKey: `k-${nonce}`,
        // A nonce is any u128: now and then one near its top.
        nonce: String(c.topNonce ? U128_MAX - nonce : nonce),
        ...(c.external ? { destinationChainId: '1', destinationAddress: EXTERNAL } : {}),
      };
      const label = c.external ? `${EXTERNAL} on Ethereum (network 1)` : `own Funding of ${t.caller.rootPublicId}`;
      const signature = await walletSignature(t.signedIn, p, { symbol: 'USDC', destinationLabel: label });
      const r = await s.chain.createWalletTradingWithdraw(t.caller, { payload: payloadBytes(p), payloadSignature: Buffer.from(signature, 'base64'), signerWallet: t.signedIn.wallet.address });
      flows.push({ id: r.intentId, kind: 'WITHDRAW' });
      return;
    }
    case 'failWithdraw': {
      const f = nth(flows.filter((x) => x.kind === 'WITHDRAW'), c.pick);
      if (f) await (c.how === 'REJECT' ? s.chain.rejectWithdrawal : s.chain.dropWithdrawal)({ flowId: f.id });
      return;
    }
    case 'blocks':
      for (let i = 0; i < c.n; i++) {
        clock.skip(BLOCK_MS);
        await s.chain.tick();
      }
      return;
    case 'deadMan':
      await orders.cancelAllAfter(t.caller, { requestId: c.longId ? `d${nonce++}`.padEnd(128, '~') : `d${nonce++}`, timeoutSec: c.timeoutSec, ...(c.symbol ? { symbol: 'SOL-USDC' } : {}), ...(c.side ? { side: c.side } : {}) });
      return;
    case 'time':
      // The sweeps the service's timer runs, at once: switches fire, GTD orders expire, TWAP slices run.
      clock.skip(c.seconds * 1000);
      await orders.fireDeadManSwitches();
      await orders.engine.expireDue();
      await orders.engine.runDueTwaps();
      return;
    case 'extreme': {
      if (c.which % 2 === 0) {
        const order = nth(extremeOrders(c.side), c.which >> 1) as Parameters<typeof orders.createOrder>[1]['order'];
        t.orders.push((await orders.createOrder(t.caller, { order })).orderId);
      } else {
        const trigger = nth(extremeTriggers(c.side), c.which >> 1) as Parameters<typeof orders.createTrigger>[1]['trigger'];
        t.triggers.push((await orders.createTrigger(t.caller, { trigger })).trigger.publicId);
      }
      // The largest credit there is, now and then, so the widest orders find their funds.
      if (c.which % 3 === 0) await s.ledger.operatorCredit({ accountId: t.caller.rootPublicId, asset: c.side === 'BUY' ? 'USDC' : 'SOL', amount: (MAX_LEDGER_AMOUNT_E18 / E18).toString(), ledgerAccount: 'TRADING' });
      return;
    }
    case 'burst': {
      // Concurrent commands from several accounts: the sequencer orders them into groups.
      const results = await Promise.allSettled(
        c.who.map((i, n) => orders.createOrder((traders[i % traders.length] as Trader).caller, { order: { symbol: 'SOL-USDC', side: n % 2 === 0 ? c.side : c.side === 'BUY' ? 'SELL' : 'BUY', baseQty: c.qty, limitGtc: { price: c.price } } })),
      );
      results.forEach((r, n) => {
        if (r.status === 'fulfilled') (traders[(c.who[n] as number) % traders.length] as Trader).orders.push(r.value.orderId);
        else if (!refused(r.reason)) throw r.reason;
      });
      return;
    }
    case 'restart':
      // A restart over the same schema: the new engine rebuilds its memory from the tables.
      await server.close();
      server = await start();
      return;
  }
}

/**
 * Runs a command as a client would: again when it is refused with RETRY (503, nothing
 * done: state it read first was refreshed meanwhile, by the service's prune or a restart).
 */
async function runRetrying(c: Command, traders: Trader[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(c, traders);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'RETRY') || attempt === 3) throw err;
    }
  }
}

/** Why the projector last failed, from the service's log: what a PROJECTION_LAGGING hides. */
function projectorFailure(): string {
  const line = server.logs.findLast((l) => l.includes('projecting trading journal entries failed'));
  return line ? `; the projector logged: ${line.slice(0, 2_000)}` : '';
}

/** A refusal the state allows (not found, insufficient funds, bad transition, ...); anything else is a bug. */
const refused = (err: unknown) => err instanceof ApiError && err.status < 500;

// ---- The three views ------------------------------------------------------------------------

/**
 * Every table the projector writes, with the columns that legitimately differ between a
 * projection made entry by entry and one made from the journal in other batches.
 */
const PROJECTED: Record<string, { except?: string[]; only?: string[]; where?: string }> = {
  // `updatedAt` is PostgreSQL's now() at each projection statement, not a journaled value.
  Order: { except: ['updatedAt'] },
  AttachedRiskLeg: { except: ['updatedAt', 'createdAt'] },
  // Serial ids and now(): they follow the statements (and their retries), not the entries.
  LedgerTransfer: { except: ['createdAt'] },
  LedgerTransferLeg: { except: ['id', 'createdAt'] },
  Trade: { except: ['id', 'createdAt'] },
  // `version` counts the statements that touched the row, `updatedAt` is their now(); an
  // upsert takes a serial id whether it inserts or not, so ids follow the statements too.
  Balance: { except: ['id', 'version', 'updatedAt', 'createdAt'] },
  ClientOrderIdReservation: {},
  Trigger: {},
  TriggerEvent: { except: ['id', 'createdAt'] },
  DeadManSwitch: { except: ['id', 'updatedAt', 'createdAt'] },
  WithdrawIntent: {},
  // Every flow and every step of it is journaled (the engine is the table's one writer):
  // deposits and withdrawals alike, fee status included.
  LifecycleFlow: {},
  // lastBookSeq jumps at every start, outside the journal (compared apart), and that
  // update's @updatedAt is the start's time.
  MarketSequence: { except: ['lastBookSeq', 'updatedAt'] },
  ProjectionWatermark: { except: ['updatedAt'] },
};

async function tableRows(client: pg.Client, schema: string, table: string): Promise<string[]> {
  const spec = PROJECTED[table] ?? {};
  const row = spec.only
    ? `(SELECT jsonb_object_agg(key, value) FROM jsonb_each(to_jsonb(t)) WHERE key = ANY($1::text[]))`
    : `to_jsonb(t) - $1::text[]`;
  const { rows } = await client.query<{ r: string }>(`SELECT (${row})::text AS r FROM "${schema}"."${table}" t ${spec.where ? `WHERE ${spec.where}` : ''}`, [spec.only ?? spec.except ?? []]);
  return rows.map((x) => x.r).sort();
}

/** Copies a table's rows to another schema, each column through text: enum types are the schema's own. */
async function copyRows(client: pg.Client, table: string, from: string, to: string, where?: string): Promise<void> {
  const { rows } = await client.query<{ names: string; casts: string }>(
    `SELECT string_agg(format('%I', attname), ', ' ORDER BY attnum) AS names, string_agg(format('%I::text::%s', attname, format_type(atttypid, atttypmod)), ', ' ORDER BY attnum) AS casts
       FROM pg_attribute WHERE attrelid = format('%I.%I', $1::text, $2::text)::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''`,
    [to, table],
  );
  const { names, casts } = rows[0] as { names: string; casts: string };
  await client.query(`INSERT INTO "${to}"."${table}" (${names}) SELECT ${casts} FROM "${from}"."${table}" ${where ? `WHERE ${where}` : ''}`);
}

/** (b): a fresh schema with every migration, the reference data the projection needs, and the Projector over every journal entry of the first. */
async function replayJournal(): Promise<string> {
  replay = await testDatabase();
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`, [database.schema]);
    const skip = new Set([...Object.keys(PROJECTED), 'TradingJournal', '_prisma_migrations']);
    // Reference rows (accounts, markets, assets, deposit flows, ...) are copied as they are;
    // their references into projected rows are checked by nobody while they are written.
    await client.query(`SET session_replication_role = replica`);
    for (const { table_name: table } of rows) {
      if (skip.has(table)) continue;
      await client.query(`DELETE FROM "${replay.schema}"."${table}"`);
      await copyRows(client, table, database.schema, replay.schema);
    }
    // Sequences start where ensureMarkets creates them.
    await client.query(`INSERT INTO "${replay.schema}"."MarketSequence" ("symbolId") SELECT "symbolId" FROM "${database.schema}"."Market"`);
  } finally {
    await client.end();
  }
  const journal = new Journal(database.sql, () => ({ name: 'unused', epoch: 0n }));
  await journal.open(0n);
  expect(await journal.firstSeq()).toBe(1n);
  const projector = new Projector(replay.sql, journal, { name: 'trading', logger: pino({ level: 'silent' }), delayMs: 0, systemAccounts: new Set() });
  await projector.open();
  await projector.catchUp();
  expect(projector.watermark).toBe(journal.lastSeq);
  return replay.schema;
}

async function expectReplayEqual(): Promise<Record<string, number>> {
  const replaySchema = await replayJournal();
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  const counts: Record<string, number> = {};
  try {
    for (const table of Object.keys(PROJECTED)) {
      const projected = await tableRows(client, database.schema, table);
      const replayed = await tableRows(client, replaySchema, table);
      const a = new Set(projected);
      const b = new Set(replayed);
      expect({ table, onlyProjected: projected.filter((r) => !b.has(r)).slice(0, 5), onlyReplayed: replayed.filter((r) => !a.has(r)).slice(0, 5), projected: projected.length }).toEqual({ table, onlyProjected: [], onlyReplayed: [], projected: replayed.length });
      counts[table] = projected.length;
    }
    const seqs = await client.query<{ symbolId: number; a: string; b: string }>(
      `SELECT a."symbolId", a."lastBookSeq"::text AS a, b."lastBookSeq"::text AS b FROM "${database.schema}"."MarketSequence" a JOIN "${replaySchema}"."MarketSequence" b USING ("symbolId")`,
    );
    for (const s of seqs.rows) expect(BigInt(s.a) >= BigInt(s.b), `lastBookSeq of ${s.symbolId}`).toBe(true);
  } finally {
    await client.end();
  }
  return counts;
}

/** One value as both sides can show it: bigint and numeric as integer text, times as ISO text, JSON parsed. */
function plain(value: unknown, type: SqlType): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'jsonb') return typeof value === 'string' ? JSON.parse(value) : value;
  if (type === 'timestamptz') return (value as Date).toISOString();
  if (type === 'bigint' || type === 'numeric') return typeof value === 'bigint' ? value.toString() : (value as { toFixed(): string }).toFixed();
  return value;
}
function columnsOf<R>(columns: Columns<R>, row: unknown): Record<string, unknown> {
  return Object.fromEntries(columns.map(([c, type]) => [c, plain((row as Record<string, unknown>)[c], type)]));
}
const byKey = <T>(rows: T[], key: (r: T) => string) => new Map(rows.map((r) => [key(r), r]));

/**
 * TRADING balances whose `held` is not what open orders, open withdrawals and live
 * triggers (PAUSED ones keep theirs) reserve: ledgerViolations' check, with triggers.
 */
async function unexplainedHolds() {
  return database.sql.query<{ id: string }>(
    `SELECT b.id::text FROM "Balance" b LEFT JOIN (
       SELECT "accountId", asset, sum(held) AS held FROM (
         SELECT o."accountId", CASE WHEN o.side = 'BUY' THEN m."quoteAssetId" ELSE m."baseAssetId" END AS asset, o."heldE18" AS held
         FROM "Order" o JOIN "Market" m ON m."symbolId" = o."symbolId" WHERE o."isOpen"
         UNION ALL
         SELECT g."accountId", CASE WHEN g.side = 'BUY' THEN m."quoteAssetId" ELSE m."baseAssetId" END, g."heldE18"
         FROM "Trigger" g JOIN "Market" m ON m."symbolId" = g."symbolId" WHERE g."terminalAt" IS NULL
         UNION ALL
         SELECT "accountId", "assetId", amount + fee FROM "WithdrawIntent" WHERE status IN ('ACCEPTED', 'PROCESSING', 'SUBMITTED')) r
       GROUP BY 1, 2) h ON h."accountId" = b."accountId" AND h.asset = b."assetId"
     WHERE b."ledgerAccount" = 'TRADING' AND b.held <> COALESCE(h.held, 0)`,
  );
}

/** (c) against (a): the engine's memory and the projected tables it was rebuilt from or wrote. */
async function expectMemoryEqual(): Promise<EngineMemory> {
  const engine = server.app.services.orders.engine;
  await engine.flushed();
  await engine.readable();
  const memory = await engine.memory();
  const db = database.prisma;

  const open = await db.order.findMany({ where: { isOpen: true } });
  expect(byKey(memory.openOrders.map((o) => columnsOf(ORDER_COLUMNS, o)), (o) => String(o.id))).toEqual(byKey(open.map((o) => columnsOf(ORDER_COLUMNS, o)), (o) => String(o.id)));

  const balances = await db.balance.findMany();
  const stored = byKey(balances, (b) => `${b.accountId}:${b.ledgerAccount}:${b.assetId}`);
  for (const b of memory.balances) {
    const row = stored.get(`${b.accountId}:${b.ledgerAccount}:${b.assetId}`);
    expect({ key: `${b.accountId}:${b.ledgerAccount}:${b.assetId}`, available: b.available.toString(), held: b.held.toString() }).toEqual({
      key: `${b.accountId}:${b.ledgerAccount}:${b.assetId}`,
      available: row?.available.toFixed() ?? '0',
      held: row?.held.toFixed() ?? '0',
    });
  }

  const live = await db.trigger.findMany({ where: { status: { in: ['CREATED', 'ARMED', 'TRIGGERED', 'RUNNING', 'PAUSED'] } } });
  expect(byKey(memory.triggers.map((t) => columnsOf(TRIGGER_COLUMNS, t)), (t) => String(t.id))).toEqual(byKey(live.map((t) => columnsOf(TRIGGER_COLUMNS, t)), (t) => String(t.id)));

  // The table keeps when a switch last fired across its re-arming (the projection's
  // COALESCE); an armed switch in memory is the arming alone, and nothing there reads it.
  const armed = await db.deadManSwitch.findMany({ where: { status: 'ARMED' } });
  const switchKey = (s: Record<string, unknown>) => `${s.accountId}:${s.symbolId}:${s.side}`;
  const armedColumns = SWITCH_COLUMNS.filter(([c]) => c !== 'lastFiredAtTsNs');
  expect(byKey(memory.armedSwitches.map((s) => columnsOf(armedColumns, s)), switchKey)).toEqual(byKey(armed.map((s) => columnsOf(armedColumns, s)), switchKey));

  const withdrawing = await db.withdrawIntent.findMany({ where: { status: { in: [...OPEN_WITHDRAW_STATUSES] } } });
  expect(new Map(memory.withdrawalHolds.map((h) => [h.intentId, `${h.ref.accountId}:${h.ref.ledgerAccount}:${h.ref.assetId}:${h.held}`]))).toEqual(
    new Map(withdrawing.map((w) => [w.id, `${w.accountId}:TRADING:${w.assetId}:${BigInt(w.amount.toFixed()) + BigInt(w.fee.toFixed())}`])),
  );

  // The matching book, its mirrored level totals and the open orders say the same.
  for (const book of memory.books) {
    const fromOrders = { bids: new Map<bigint, bigint>(), asks: new Map<bigint, bigint>() };
    for (const o of open) {
      if (o.symbolId !== book.symbolId) continue;
      const side = o.side === 'BUY' ? fromOrders.bids : fromOrders.asks;
      side.set(o.price, (side.get(o.price) ?? 0n) + o.leavesQty);
    }
    const depth = { bids: new Map(book.depth.bids.map((l) => [l.price, l.qty])), asks: new Map(book.depth.asks.map((l) => [l.price, l.qty])) };
    expect({ symbolId: book.symbolId, ...depth }).toEqual({ symbolId: book.symbolId, ...fromOrders });
    expect({ symbolId: book.symbolId, ...book.mirror }).toEqual({ symbolId: book.symbolId, ...fromOrders });
  }
  const { holds: _ordersAndWithdrawalsOnly, ...ledger } = await ledgerViolations((text) => database.sql.query(text));
  expect({ ...ledger, holds: await unexplainedHolds() }).toEqual(SOUND_LEDGER);
  return memory;
}

/** Runs a check with the clock stopped and the service quiet, naming the seed when it fails. */
async function checked<T>(when: string, check: () => Promise<T>): Promise<T> {
  frozenAt = shifted.now();
  try {
    await quiet();
    return await check();
  } catch (err) {
    if (err instanceof Error) err.message = `DIFF_SEED=${SEED} DIFF_COMMANDS=${COMMANDS}, ${when}: ${err.message}${projectorFailure()}`;
    throw err;
  } finally {
    frozenAt = undefined;
  }
}

/** Runs what is due at the stopped clock, then waits until the journal stops growing (the service's timer sweeps every 250 ms). */
async function quiet(): Promise<void> {
  const orders = server.app.services.orders;
  await orders.fireDeadManSwitches();
  await orders.engine.expireDue();
  await orders.engine.runDueTwaps();
  const last = async () => (await database.sql.query<{ seq: string | null }>(`SELECT max(seq)::text AS seq FROM "TradingJournal"`))[0]?.seq;
  for (let before = await last(); ; ) {
    await new Promise((r) => setTimeout(r, 600));
    await orders.engine.flushed();
    const after = await last();
    if (after === before) return;
    before = after;
  }
}

describe('projection equals replay', () => {
  it(`${COMMANDS} random commands (seed ${SEED}): projected tables, a replay of the journal and the engine's memory agree`, async () => {
    const startedAt = performance.now();
    const traders: Trader[] = [];
    for (let i = 0; i < 4; i++) traders.push(await newTrader());
    const tally: Record<string, { ok: number; refused: number; codes: Record<string, number> }> = {};
    let restarts = 0;
    // One long run from the seed; shrinking it against a real database would take longer
    // than it is worth, and the seed and the command's index say where to look.
    const [commands] = fc.sample(fc.array(command, { minLength: COMMANDS, maxLength: COMMANDS }), { seed: SEED, numRuns: 1 }) as [Command[]];
    for (const [i, c] of commands.entries()) {
      const label = c.k === 'extreme' ? `extreme:${c.which % 2 === 0 ? 'order' : 'trigger'}${(c.which >> 1) % (c.which % 2 === 0 ? extremeOrders : extremeTriggers)(c.side).length}` : c.k;
      const entry = (tally[label] ??= { ok: 0, refused: 0, codes: {} });
      try {
        await runRetrying(c, traders);
        entry.ok += 1;
      } catch (err) {
        if (!refused(err)) throw new Error(`DIFF_SEED=${SEED}: command ${i} ${JSON.stringify(c)} failed: ${(err as Error).message}${projectorFailure()}`, { cause: err });
        entry.refused += 1;
        const why = `${(err as ApiError).code}${(err as ApiError).violations[0] ? `:${(err as ApiError).violations[0]?.fieldPath}` : ''}`;
        entry.codes[why] = (entry.codes[why] ?? 0) + 1;
      }
      if (c.k === 'restart') {
        restarts += 1;
        await checked(`after the restart at command ${i}`, expectMemoryEqual);
      }
    }
    const memory = await checked('at the end', expectMemoryEqual);
    const counts = await checked('at the end', expectReplayEqual);
    const [journal] = await database.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "TradingJournal"`);
    console.info(
      JSON.stringify({ commands: COMMANDS, seed: SEED, seconds: Math.round((performance.now() - startedAt) / 100) / 10, restarts, journalEntries: Number(journal?.n), rows: counts, openOrders: memory.openOrders.length, liveTriggers: memory.triggers.length, tally }),
    );
    // The mix reached what it is meant to: fills, fired triggers, deposits and withdrawals.
    expect(counts.Trade).toBeGreaterThan(0);
    expect(counts.TriggerEvent).toBeGreaterThan(0);
  }, 600_000);
});
