import { z } from 'zod';
import type { SubscriberLimits } from './services/publications.ts';
import type { StreamLimits } from './transport/streamLimits.ts';

/** How long the service waits on PostgreSQL before it gives a connection up (milliseconds). */
export interface DatabaseTimeouts {
  /** Longest statement PostgreSQL runs (statement_timeout); the client gives up a little after it. */
  statementMs: number;
  /** Longest wait to open a connection, or for a free one in the pool. */
  connectMs: number;
  /** Longest a transaction may sit idle in PostgreSQL holding its locks (idle_in_transaction_session_timeout). */
  idleInTransactionMs: number;
}

/**
 * A statement bound no longer than the default commit deadline: a request that reads
 * PostgreSQL before it trades (its key, its balances) is refused as soon as its order
 * would be, not later (docs/scaling.md, "Bounded waits on PostgreSQL").
 */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { statementMs: 3_000, connectMs: 2_000, idleInTransactionMs: 10_000 };

/**
 * Every environment variable the service reads, parsed once. The README's table
 * is written from this list; nothing else in src/ reads process.env.
 */
const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional(),
  // Bounds on every wait on PostgreSQL (docs/scaling.md, "Bounded waits on PostgreSQL").
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(DEFAULT_DATABASE_TIMEOUTS.statementMs),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(DEFAULT_DATABASE_TIMEOUTS.connectMs),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(DEFAULT_DATABASE_TIMEOUTS.idleInTransactionMs),
  DATA_DIR: z.string().default('./data'),
  REDIS_URL: z.string().url().optional(),
  REDIS_KEY_PREFIX: z.string().default('sx:'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(1024 * 1024),
  PAGE_TOKEN_SECRET: z.string().min(32).optional(),
  PROBLEM_BASE_URL: z.string().url().default('https://errors.spot.example/problems'),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  // A client has this long to send its request headers, and this long for the whole
  // request, body included; past either the connection is answered 408 and closed.
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  // Streams (docs/scaling.md, "Stream limits"): how far a subscriber may fall behind, how many
  // streaming connections a client may hold, and how long a stalled one is kept.
  SUBSCRIBER_MAX_PENDING_EVENTS: z.coerce.number().int().min(16).max(1_000_000).default(5_000),
  SUBSCRIBER_MAX_PENDING_BYTES: z.coerce.number().int().min(4096).max(256 * 1024 * 1024).default(4 * 1024 * 1024),
  STREAM_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(64),
  STREAM_CONNECTIONS_PER_CREDENTIAL: z.coerce.number().int().min(1).max(100_000).default(16),
  STREAM_SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).max(10_000).default(32),
  STREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  OPERATOR_TOKEN: z.string().min(16).optional(),
  RATE_LIMIT_TIMEOUT_MS: z.coerce.number().int().min(1).max(10_000).default(250),
  PROJECTION_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  COMMIT_DEADLINE_MS: z.coerce.number().int().min(100).max(600_000).default(3_000),
  CHAIN_BLOCK_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  MAX_LIVE_TRIGGERS_PER_ACCOUNT: z.coerce.number().int().min(1).max(1_000_000).default(200),
  SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(24 * 3600),
  TERMS_VERSION: z.string().min(1).max(64).default('2026-11-01'),
  SIGN_IN_DOMAIN: z.string().min(1).default('spot.example'),
  // false; true (one hop: a single load balancer in front); a number of hops; or the
  // comma-separated addresses/CIDRs of the trusted proxies.
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v, ctx): TrustProxy => {
      if (v === 'false') return false;
      if (v === 'true') return { hops: 1 };
      if (/^[1-9][0-9]?$/.test(v)) return { hops: Number(v) };
      const addresses = v.split(',').map((a) => a.trim());
      if (addresses.some((a) => !/^[0-9a-fA-F.:]+(\/[0-9]{1,3})?$/.test(a))) {
        ctx.addIssue({ code: 'custom', message: 'false, true, a number of hops, or comma-separated proxy addresses/CIDRs' });
        return z.NEVER;
      }
      return { addresses };
    }),
});

/**
 * Which proxies may name the client in X-Forwarded-For: none, the nearest `hops` (the
 * peer and the ones before it), or the listed addresses/CIDRs. Trusting every hop would let
 * a client pick its own address (the leftmost entry is whatever it sent), and with it any
 * key's IP whitelist and per-IP quota.
 */
export type TrustProxy = false | { hops: number } | { addresses: string[] };

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  http: {
    port: number;
    host: string;
    bodyLimitBytes: number;
    trustProxy: TrustProxy;
    shutdownGraceMs: number;
    /** Deadlines for receiving a request's headers, and the whole request. */
    headersTimeoutMs: number;
    requestTimeoutMs: number;
  };
  database: { kind: 'postgres'; url: string; schema?: string; timeouts?: DatabaseTimeouts } | { kind: 'pglite'; dataDir: string };
  redis: { kind: 'redis'; url: string; keyPrefix: string } | { kind: 'memory'; keyPrefix: string };
  logLevel: Env['LOG_LEVEL'];
  /** Unset: a secret is kept in DATA_DIR (embedded mode) or made per process. */
  pageTokenSecret?: string;
  dataDir: string;
  problemBaseUrl: string;
  auth: { sessionTtlSeconds: number; termsVersion: string; signInDomain: string };
  /** Unset: the operator API (/operator/v1) is not served at all. */
  operatorToken?: string;
  /** Deadline of one rate-limit check; past it the authority counts as unavailable. */
  rateLimitTimeoutMs: number;
  /** How long the trading projector lets journal entries gather before applying them. */
  projectionDelayMs: number;
  /** How long an order may wait for durability before it is refused (503) and never stored. */
  commitDeadlineMs: number;
  /** The simulated chain's block interval: deposits gain one confirmation per block. */
  chainBlockMs: number;
  /** Live standalone triggers per trading account (docs/scaling.md). */
  maxLiveTriggersPerAccount: number;
  streams: {
    subscriber: SubscriberLimits;
    connections: StreamLimits;
    /** A connection whose writes stall (or a graphql-ws socket that stops answering pings) this long is closed. */
    idleTimeoutMs: number;
  };
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable (`OPERATOR_TOKEN=`) means unset, as most tools that write env files intend.
  const set = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ''));
  const parsed = EnvSchema.safeParse(set);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    http: {
      port: e.PORT,
      host: e.HOST,
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
      trustProxy: e.TRUST_PROXY,
      shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
      headersTimeoutMs: Math.min(e.HTTP_HEADERS_TIMEOUT_MS, e.HTTP_REQUEST_TIMEOUT_MS),
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    },
    database: e.DATABASE_URL
      ? {
          kind: 'postgres',
          url: e.DATABASE_URL,
          ...(e.DATABASE_SCHEMA ? { schema: e.DATABASE_SCHEMA } : {}),
          timeouts: { statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS, connectMs: e.DATABASE_CONNECT_TIMEOUT_MS, idleInTransactionMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS },
        }
      : { kind: 'pglite', dataDir: e.DATA_DIR },
    redis: e.REDIS_URL
      ? { kind: 'redis', url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX }
      : { kind: 'memory', keyPrefix: e.REDIS_KEY_PREFIX },
    logLevel: e.LOG_LEVEL,
    ...(e.PAGE_TOKEN_SECRET ? { pageTokenSecret: e.PAGE_TOKEN_SECRET } : {}),
    dataDir: e.DATA_DIR,
    problemBaseUrl: e.PROBLEM_BASE_URL.replace(/\/$/, ''),
    ...(e.OPERATOR_TOKEN ? { operatorToken: e.OPERATOR_TOKEN } : {}),
    rateLimitTimeoutMs: e.RATE_LIMIT_TIMEOUT_MS,
    projectionDelayMs: e.PROJECTION_DELAY_MS,
    commitDeadlineMs: e.COMMIT_DEADLINE_MS,
    chainBlockMs: e.CHAIN_BLOCK_MS,
    maxLiveTriggersPerAccount: e.MAX_LIVE_TRIGGERS_PER_ACCOUNT,
    streams: {
      subscriber: { maxPendingEvents: e.SUBSCRIBER_MAX_PENDING_EVENTS, maxPendingBytes: e.SUBSCRIBER_MAX_PENDING_BYTES },
      connections: {
        connectionsPerIp: e.STREAM_CONNECTIONS_PER_IP,
        connectionsPerCredential: e.STREAM_CONNECTIONS_PER_CREDENTIAL,
        subscriptionsPerConnection: e.STREAM_SUBSCRIPTIONS_PER_CONNECTION,
      },
      idleTimeoutMs: e.STREAM_IDLE_TIMEOUT_MS,
    },
    auth: { sessionTtlSeconds: e.SESSION_TTL_SECONDS, termsVersion: e.TERMS_VERSION, signInDomain: e.SIGN_IN_DOMAIN },
  };
}
