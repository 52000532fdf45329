import { ApiError, errors } from '../domain/errorCatalogue.ts';

/** SQLSTATE 22021 (character_not_in_repertoire): PostgreSQL cannot hold U+0000 in text. */
const NUL_IN_TEXT = '22021';

/** Prisma's codes for a database it cannot reach or whose connection broke (not the query's fault). */
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/** Its driver adapters' kinds for the same. */
const ADAPTER_UNREACHABLE = new Set(['ConnectionClosed', 'DatabaseNotReachable', 'SocketTimeout', 'TooManyConnections', 'DatabaseDoesNotExist']);
/** Socket errors of the pg driver itself. */
const SOCKET_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** pg's: no answer to a statement in time, no connection from the pool in time, no connection opened in time. */
const CLIENT_TIMEOUTS = /Query read timeout|timeout exceeded when trying to connect|Connection terminated due to connection timeout|timeout expired/;

/** A statement pg stopped waiting for (its `query_timeout`): whether it ran is unknown until the database is read again. */
export const isReadTimeout = (err: unknown): boolean => err instanceof Error && err.message === 'Query read timeout';

type DatabaseError = { code?: unknown; message?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; kind?: unknown } } } } | null;

/**
 * A database error that says nothing about the request: the connection broke, the server
 * is shutting down or cannot be reached. Class 08 (connection exception), 57P01 to 57P03
 * (shut down, crashed, not accepting connections yet), 53300 (too many connections), and
 * the bounds on waiting for it (docs/scaling.md, "Bounded waits on PostgreSQL"): 57014
 * (statement_timeout), 25P03 (idle_in_transaction_session_timeout), and the client's own
 * (no answer, no connection in time).
 */
function isUnreachable(e: DatabaseError): boolean {
  const cause = e?.meta?.driverAdapterError?.cause;
  const sqlState = String(cause?.originalCode ?? e?.code ?? '');
  if (PRISMA_UNREACHABLE.has(sqlState) || SOCKET_ERRORS.has(sqlState)) return true;
  if (sqlState.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '57014', '25P03'].includes(sqlState)) return true;
  if (typeof cause?.kind === 'string' && ADAPTER_UNREACHABLE.has(cause.kind)) return true;
  // pg reports a connection that ended under a query, and its own timeouts, only in words
  // (which Prisma passes on inside its own message).
  return typeof e?.message === 'string' && (/^Connection terminated|not queryable|Connection ended/.test(e.message) || CLIENT_TIMEOUTS.test(e.message));
}

/**
 * The database errors that are not the service's fault, as the answer they call for: bad
 * input as the client error it is, a database out of reach as a 503 to retry; any other
 * database error stays internal. Both drivers are covered: pg and PGlite raise the
 * SQLSTATE as `code`, Prisma wraps it in its driver adapter's error.
 */
export function apiErrorFromDatabase(err: unknown): ApiError | undefined {
  const e = err as DatabaseError;
  const sqlState = e?.meta?.driverAdapterError?.cause?.originalCode ?? e?.code;
  if (sqlState === NUL_IN_TEXT) {
    return errors.INVALID_CHARACTER('a text value holds a character that cannot be stored (U+0000)', { cause: err });
  }
  if (isUnreachable(e)) return errors.DATABASE_UNAVAILABLE('the database could not be reached; retry', { cause: err });
  return undefined;
}

/** SQLSTATE 23505 (unique_violation), as Prisma reports it (P2002) or as the driver does. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null;
  return e?.code === 'P2002' || e?.code === '23505' || e?.meta?.driverAdapterError?.cause?.originalCode === '23505';
}

/**
 * Runs a find-or-create once more when a concurrent request inserted the same unique row
 * between its read and its write: the second run finds that row, so racing requests get
 * the answer they would have got one after another (the database, not the read, decides).
 */
export async function retryOnUniqueRace<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return run();
  }
}
