import type { FastifyError } from 'fastify';
import type { z } from 'zod';
import { ApiError, errors, type Violation } from '../domain/errorCatalogue.ts';
import { apiErrorFromDatabase } from '../infra/databaseErrors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The body of section 7: RFC 9457 members plus `code` and `violations`. */
export function problemBody(err: ApiError, problemBaseUrl: string, requestId: string): Record<string, unknown> {
  return {
    type: `${problemBaseUrl}/${err.key}`,
    title: err.title,
    status: err.status,
    detail: err.message,
    code: err.code,
    ...(err.violations.length > 0 ? { violations: err.violations } : {}),
    ...err.extensions,
    requestId,
  };
}

const RULE_IDS: Record<string, string> = {
  invalid_type: 'type',
  too_big: 'max',
  too_small: 'min',
  invalid_format: 'format',
  not_multiple_of: 'multiple-of',
  unrecognized_keys: 'unknown-field',
  invalid_union: 'one-of',
  invalid_value: 'enum',
  invalid_key: 'key',
  invalid_element: 'element',
};

/** Joins a zod path the way clients name fields: `items[3].orderId`. */
export function fieldPathOf(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

export function violationsOf(error: z.ZodError, prefix = ''): Violation[] {
  return error.issues.flatMap((issue): Violation[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({
        fieldPath: fieldPathOf([...issue.path, k], prefix),
        message: 'is not a field of this request',
        ruleId: RULE_IDS.unrecognized_keys as string,
      }));
    }
    const custom = issue.code === 'custom' ? (issue.params as { ruleId?: string } | undefined)?.ruleId : undefined;
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return [
      {
        fieldPath: fieldPathOf(issue.path, prefix) || prefix || 'body',
        message: missing ? 'is required' : issue.message,
        ruleId: missing ? 'required' : (custom ?? RULE_IDS[issue.code] ?? issue.code),
      },
    ];
  });
}

export function validationError(error: z.ZodError, part: string): ApiError {
  const violations = violationsOf(error);
  const first = violations[0];
  const detail = first ? `${part}: ${first.fieldPath} ${first.message}` : `${part} is invalid`;
  return errors.BAD_REQUEST(detail, { violations });
}

/** Maps anything thrown while serving a request to the one error type. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const fe = err as Partial<FastifyError> & { validation?: unknown };
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.PAYLOAD_TOO_LARGE('request body is larger than the limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.UNSUPPORTED_MEDIA_TYPE('request bodies must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.BAD_REQUEST('request body is empty', {
        violations: [{ fieldPath: 'body', message: 'is required', ruleId: 'required' }],
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return malformedBody(fe.message);
  }
  // secure-json-parse's syntax and prototype-poisoning errors carry no code.
  if (err instanceof SyntaxError || (fe.statusCode === 400 && !fe.code)) return malformedBody(fe.message);
  return apiErrorFromDatabase(err) ?? errors.INTERNAL('internal error', { cause: err });
}

function malformedBody(message = 'malformed JSON'): ApiError {
  return errors.BAD_REQUEST('request body is not valid JSON', {
    violations: [{ fieldPath: 'body', message, ruleId: 'json' }],
  });
}
