import { ApiError } from '../domain/errors.ts';

/** SQLSTATE 22021 (character_not_in_repertoire): PostgreSQL cannot hold U+0000 in text. */
const NUL_IN_TEXT = '22021';

/**
 * The database errors that only bad input causes, as the client error they are; any other
 * database error stays internal. Both drivers are covered: pg and PGlite raise the
 * SQLSTATE as `code`, Prisma wraps it in its driver adapter's error.
 */
export function clientErrorFromDatabase(err: unknown): ApiError | undefined {
  const e = err as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null;
  const sqlState = e?.meta?.driverAdapterError?.cause?.originalCode ?? e?.code;
  if (sqlState !== NUL_IN_TEXT) return undefined;
  return new ApiError('invalid-argument', 'a text value holds a character that cannot be stored (U+0000)', { code: 'INVALID_CHARACTER', cause: err });
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
