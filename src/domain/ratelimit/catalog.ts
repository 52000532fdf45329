/**
 * The rate-limit catalog of spec section 8, as data: every pool, its rate and burst, its
 * scopes, and each operation's stable id and cost. Trading pools come from the VIP
 * catalog (numbers are ours: see docs/api-decisions.md).
 */
export const POOL_NAMES = [
  'AUTH_PUBLIC',
  'ACCOUNT_ADMIN',
  'ACCOUNT_SECURITY',
  'SOCIAL_PROVIDER',
  'DEPOSIT_CREATE',
  'INTERNAL_TRANSFER',
  'WITHDRAW_SUBMIT',
  'WITHDRAW_VALIDATE',
  'GUARD_SIGN',
  'TRADING_PLACE',
  'TRADING_CANCEL',
] as const;
export type PoolName = (typeof POOL_NAMES)[number];

export type Scope = 'CLIENT_IP' | 'AUTH_SUBJECT' | 'API_KEY' | 'ACCOUNT' | 'SUBACCOUNT';

/** A weighted token bucket: `quota` units return evenly over `periodMs`; it holds at most `burst`. */
export interface BucketPolicy {
  quota: number;
  periodMs: number;
  burst: number;
}

/**
 * The largest policy an operator may set. Buckets are kept in units x period in µs as
 * exact integers in doubles (here and in Redis's Lua), so capacity (burst x period x 1000)
 * plus a refill step must stay below 2^53: burst x periodMs is bounded by 8 x 10^12 (8 x
 * 10^15 in µs), and a refill step by the quota's 10^9.
 */
export const OVERRIDE_LIMITS = { quotaWeight: 1_000_000_000, periodMs: 86_400_000, burstWeight: 1_000_000_000, burstTimesPeriodMs: 8_000_000_000_000 } as const;

/** The most units one request can cost (a batch of 50 at the dearest operation's 5). */
export const MAX_REQUEST_COST = 50 * 5;

export interface PoolDefinition extends BucketPolicy {
  name: PoolName;
  scopes: readonly Scope[];
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const ACCOUNT_SCOPES = ['ACCOUNT', 'API_KEY', 'SUBACCOUNT'] as const;

export const POOLS: Record<Exclude<PoolName, 'TRADING_PLACE' | 'TRADING_CANCEL'>, PoolDefinition> = {
  AUTH_PUBLIC: { name: 'AUTH_PUBLIC', quota: 30, periodMs: MINUTE, burst: 30, scopes: ['CLIENT_IP', 'AUTH_SUBJECT'] },
  ACCOUNT_ADMIN: { name: 'ACCOUNT_ADMIN', quota: 120, periodMs: MINUTE, burst: 30, scopes: ACCOUNT_SCOPES },
  ACCOUNT_SECURITY: { name: 'ACCOUNT_SECURITY', quota: 60, periodMs: MINUTE, burst: 20, scopes: ACCOUNT_SCOPES },
  SOCIAL_PROVIDER: { name: 'SOCIAL_PROVIDER', quota: 10, periodMs: HOUR, burst: 3, scopes: ACCOUNT_SCOPES },
  DEPOSIT_CREATE: { name: 'DEPOSIT_CREATE', quota: 10, periodMs: MINUTE, burst: 3, scopes: ACCOUNT_SCOPES },
  INTERNAL_TRANSFER: { name: 'INTERNAL_TRANSFER', quota: 60, periodMs: MINUTE, burst: 10, scopes: ACCOUNT_SCOPES },
  WITHDRAW_SUBMIT: { name: 'WITHDRAW_SUBMIT', quota: 10, periodMs: MINUTE, burst: 5, scopes: ACCOUNT_SCOPES },
  WITHDRAW_VALIDATE: { name: 'WITHDRAW_VALIDATE', quota: 120, periodMs: MINUTE, burst: 30, scopes: ACCOUNT_SCOPES },
  GUARD_SIGN: { name: 'GUARD_SIGN', quota: 300, periodMs: MINUTE, burst: 100, scopes: ACCOUNT_SCOPES },
};

/** Trading catalog (GET /v1/rate-limits). Weighted units per 10 s; burst equals the quota. */
export const TRADING_POLICY_VERSION = '1';
export const TRADING_EFFECTIVE_FROM = new Date('2026-11-01T00:00:00Z');
export const TRADING_PERIOD_MS = 10_000;
const PLACE_QUOTA_BY_VIP = [100, 150, 200, 300, 400, 500, 700, 1_000, 1_500, 2_000, 3_000] as const;
const CANCEL_QUOTA_BY_VIP = [150, 225, 300, 450, 600, 750, 1_050, 1_500, 2_250, 3_000, 4_500] as const;
export const MAX_VIP_TIER = 10;

export function tradingPool(name: 'TRADING_PLACE' | 'TRADING_CANCEL', vipTier: number): PoolDefinition {
  const tier = Math.min(Math.max(0, Math.trunc(vipTier)), MAX_VIP_TIER);
  const quota = (name === 'TRADING_PLACE' ? PLACE_QUOTA_BY_VIP : CANCEL_QUOTA_BY_VIP)[tier] as number;
  return { name, quota, periodMs: TRADING_PERIOD_MS, burst: quota, scopes: ACCOUNT_SCOPES };
}

export function tradingCatalog() {
  return Array.from({ length: MAX_VIP_TIER + 1 }, (_, vipTier) =>
    (['TRADING_PLACE', 'TRADING_CANCEL'] as const).map((pool) => {
      const p = tradingPool(pool, vipTier);
      return { vipTier, policyClass: pool === 'TRADING_PLACE' ? ('PLACE' as const) : ('CANCEL' as const), periodMs: p.periodMs, quotaWeight: p.quota, burstWeight: p.burst };
    }),
  ).flat();
}

/** Version of the whole catalog, reported with every rejection. */
export const POLICY_VERSION = TRADING_POLICY_VERSION;

export interface OperationCost {
  pool: PoolName;
  cost: number;
}

/**
 * Every limited operation by its stable `operation_id`, shared by all transports.
 * Batch operations give a per-item cost; the caller multiplies by the item count.
 */
export const OPERATIONS = {
  'auth.wallet_nonce': { pool: 'AUTH_PUBLIC', cost: 1 },
  'auth.wallet_login': { pool: 'AUTH_PUBLIC', cost: 1 },
  'account.create_subaccount': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  'account.accept_terms': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  'address_book.mutate': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  // Layouts and templates are profile data; chart edits are smaller and more frequent, at half the cost.
  'layout.mutate': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  'layout.publish': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  // Discovery reads every listed template's title: metered like the profile writes, at half their cost.
  'layout.search': { pool: 'ACCOUNT_ADMIN', cost: 1 },
  'chart.mutate': { pool: 'ACCOUNT_ADMIN', cost: 1 },
  'chart.sync': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  // Whiteboards: spec 8 prices member changes at 2 units of ACCOUNT_ADMIN; creating a board
  // and changing its settings are profile data at the same price.
  'whiteboard.create': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  'whiteboard.update': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  'whiteboard.member': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  'whiteboard.delete': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  // A restore rewrites the whole scene in every open room: priced like the other board mutations.
  'whiteboard.restore': { pool: 'ACCOUNT_ADMIN', cost: 2 },
  'security.api_policy_mutate': { pool: 'ACCOUNT_SECURITY', cost: 2 },
  'security.api_key_create': { pool: 'ACCOUNT_SECURITY', cost: 5 },
  'security.api_key_update': { pool: 'ACCOUNT_SECURITY', cost: 5 },
  'security.api_key_delete': { pool: 'ACCOUNT_SECURITY', cost: 5 },
  'deposit.create_address': { pool: 'DEPOSIT_CREATE', cost: 1 },
  'transfer.internal': { pool: 'INTERNAL_TRANSFER', cost: 1 },
  'withdraw.submit': { pool: 'WITHDRAW_SUBMIT', cost: 1 },
  'withdraw.validate_destination': { pool: 'WITHDRAW_VALIDATE', cost: 1 },
  'trading.place': { pool: 'TRADING_PLACE', cost: 1 },
  'trading.modify': { pool: 'TRADING_PLACE', cost: 1 },
  'trading.resume': { pool: 'TRADING_PLACE', cost: 1 },
  'trading.batch_place_item': { pool: 'TRADING_PLACE', cost: 1 },
  'trading.cancel': { pool: 'TRADING_CANCEL', cost: 1 },
  'trading.pause': { pool: 'TRADING_CANCEL', cost: 1 },
  'trading.cancel_all_after': { pool: 'TRADING_CANCEL', cost: 1 },
  'trading.batch_cancel_item': { pool: 'TRADING_CANCEL', cost: 1 },
  'trading.cancel_all': { pool: 'TRADING_CANCEL', cost: 10 },
} as const satisfies Record<string, OperationCost>;

export type OperationId = keyof typeof OPERATIONS;
