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
