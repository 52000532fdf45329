import { GraphQLError } from 'graphql';
import { ApiError, codes, ERROR_CATALOGUE, ERROR_KEYS, type ErrorCode } from '../../domain/errorCatalogue.ts';
import { apiErrorFromDatabase } from '../../infra/databaseErrors.ts';

/** What a GraphQL error of `code` carries besides its message: the code, its key and that key's status. */
export function codeExtensions(code: ErrorCode): { code: ErrorCode; key: string; status: number } {
  const { key } = ERROR_CATALOGUE[code];
  return { code, key, status: ERROR_KEYS[key].status };
}

/** GraphQL errors carry the same key, code and violations as /v1 problem bodies. */
export function toGraphQLError(err: unknown): GraphQLError {
  if (err instanceof GraphQLError && !(err.originalError instanceof ApiError)) {
    if (err.originalError) return toGraphQLError(err.originalError);
    if (err.extensions.code) return err;
    // graphql-js's own refusals of a request's values (a missing or mistyped variable, a
    // scalar that does not parse) carry no code: they are the caller's, like a 400.
    return new GraphQLError(err.message, {
      ...(err.nodes ? { nodes: err.nodes } : {}),
      ...(err.path ? { path: err.path } : {}),
      extensions: { ...err.extensions, ...codeExtensions(codes.BAD_USER_INPUT) },
    });
  }
  const raw = err instanceof GraphQLError ? err.originalError : err;
  const original = raw instanceof ApiError ? raw : (apiErrorFromDatabase(raw) ?? raw);
  if (original instanceof ApiError) {
    return new GraphQLError(original.message, {
      extensions: {
        // Yoga turns `http` into the response status and headers (e.g. 429 with RateLimit-*).
        http: { status: original.status, headers: original.headers },
        code: original.code,
        key: original.key,
        status: original.status,
        ...(original.violations.length > 0 ? { violations: original.violations } : {}),
        ...original.extensions,
      },
    });
  }
  return new GraphQLError('internal error', { extensions: codeExtensions(codes.INTERNAL) });
}
