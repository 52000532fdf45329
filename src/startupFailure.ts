import { DEFAULT_DATABASE_TIMEOUTS, type Config } from './config.ts';
import type { SharedStore } from './infra/redis.ts';

/** Socket errors that mean nothing answered at the address (the service or the address is wrong). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET']);
/** pg's words for a server that accepted no connection in DATABASE_CONNECT_TIMEOUT_MS (it gives them no code). */
const CONNECT_TIMEOUT = /timeout expired|Connection terminated due to connection timeout|timeout exceeded when trying to connect/;

/**
 * One actionable line for the failures a person starting the service can fix themselves
 * (no database, wrong address or credentials); undefined for anything else, which keeps its
 * stack trace. The URL is shown without its password.
 */
export function startupFailure(err: unknown, config: Config): string | undefined {
  if (config.database.kind !== 'postgres') return undefined;
  const url = new URL(config.database.url);
  const where = `DATABASE_URL=${redacted(url)}`;
  const database = decodeURIComponent(url.pathname.slice(1)) || url.username;
  const code = errorCode(err);
  if (code === '3D000') {
    return `cannot start: the database "${database}" does not exist (${where}); create it with \`createdb ${database}\` or point DATABASE_URL at an existing one`;
  }
  if (code === '28P01' || code === '28000') return `cannot start: PostgreSQL refused the credentials of ${where}; fix the user or password in DATABASE_URL`;
  if (code === '57P03') return `cannot start: PostgreSQL at ${url.host} is still starting up (${where}); start the service again in a moment`;
  if (code && UNREACHABLE.has(code)) return `cannot start: PostgreSQL is not reachable at ${url.host} (${where}, ${code}); start PostgreSQL or fix DATABASE_URL`;
  if (CONNECT_TIMEOUT.test(messageOf(err))) {
    return `cannot start: PostgreSQL at ${url.host} did not answer within ${config.database.timeouts?.connectMs ?? DEFAULT_DATABASE_TIMEOUTS.connectMs} ms (${where}); start PostgreSQL, fix DATABASE_URL or raise DATABASE_CONNECT_TIMEOUT_MS`;
  }
  return undefined;
}

/** Start-up's `.catch`: a failure the person can fix ends the process with its one line and exit code 1; any other is rethrown. */
export function exitOnStartupFailure(config: Config): (err: unknown) => never {
  return (err) => {
    const line = startupFailure(err, config);
    if (!line) throw err;
    process.stderr.write(`${line}\n`);
    process.exit(1);
  };
}

/**
 * One line when Redis did not answer at start-up. The service does not stop for it (an
 * outage of Redis is waited out: docs/scaling.md), so this says what works meanwhile and
 * what to fix; undefined when Redis answers or is not configured.
 */
export function sharedStoreWarning(store: SharedStore, config: Config): string | undefined {
  if (config.redis.kind !== 'redis' || store.available) return undefined;
  const url = new URL(config.redis.url);
  const where = `REDIS_URL=${redacted(url)}`;
  const meanwhile = 'serving reads; orders and other mutations answer 503 until it does';
  const message = messageOf(store.connectionError);
  if (/^(WRONGPASS|NOAUTH)/.test(message)) {
    return `warning: Redis at ${url.host} refused the credentials of ${where} (${message.split(' ')[0]}); ${meanwhile}: fix the user or password in REDIS_URL`;
  }
  const reason = errorCode(store.connectionError) ?? 'no answer yet';
  return `warning: Redis is not reachable at ${url.host} (${where}, ${reason}); ${meanwhile}: start Redis or fix REDIS_URL`;
}

function redacted(url: URL): string {
  const copy = new URL(url);
  if (copy.password) copy.password = '***';
  return copy.toString();
}

/** The error's code; Node reports a refused `localhost` (tried on IPv6 and IPv4) as an AggregateError of both. */
function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; errors?: unknown } | null | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (Array.isArray(e?.errors)) return errorCode(e.errors[0]);
  return undefined;
}

function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : '';
}
