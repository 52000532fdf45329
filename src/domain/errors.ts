import type { ErrorCode } from './errorCatalogue.ts';

/**
 * The one error type every layer throws. Transports render it (REST as
 * application/problem+json, GraphQL as extensions); nothing else produces an error body.
 */
export const ERROR_KEYS = {
  'invalid-argument': { status: 400, title: 'Invalid Argument', code: 'BAD_REQUEST' },
  unauthenticated: { status: 401, title: 'Unauthenticated', code: 'UNAUTHENTICATED' },
  'permission-denied': { status: 403, title: 'Permission Denied', code: 'PERMISSION_DENIED' },
  'not-found': { status: 404, title: 'Not Found', code: 'NOT_FOUND' },
  'method-not-allowed': { status: 405, title: 'Method Not Allowed', code: 'METHOD_NOT_ALLOWED' },
  'request-timeout': { status: 408, title: 'Request Timeout', code: 'REQUEST_TIMEOUT' },
  conflict: { status: 409, title: 'Conflict', code: 'CONFLICT' },
  'payload-too-large': { status: 413, title: 'Payload Too Large', code: 'PAYLOAD_TOO_LARGE' },
  'uri-too-long': { status: 414, title: 'URI Too Long', code: 'URI_TOO_LONG' },
  'unsupported-media-type': { status: 415, title: 'Unsupported Media Type', code: 'UNSUPPORTED_MEDIA_TYPE' },
  'rate-limit-exceeded': { status: 429, title: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED' },
  'request-header-fields-too-large': { status: 431, title: 'Request Header Fields Too Large', code: 'HEADERS_TOO_LARGE' },
  internal: { status: 500, title: 'Internal Error', code: 'INTERNAL' },
  unavailable: { status: 503, title: 'Unavailable', code: 'UNAVAILABLE' },
} as const;

export type ErrorKey = keyof typeof ERROR_KEYS;

export interface Violation {
  /** Request field path using canonical field names, e.g. `order.limitGtc.price`. */
  fieldPath: string;
  message: string;
  /** Stable id for programmatic matching, e.g. `required`, `max-length`, `int64`. */
  ruleId: string;
}

export interface ApiErrorOptions {
  /** One of the catalogue's (src/domain/errorCatalogue.ts); the key's default when absent. */
  code?: ErrorCode;
  violations?: Violation[];
  /** Extra members rendered into the body (e.g. `rate_limit`). */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly key: ErrorKey;
  readonly code: ErrorCode;
  readonly violations: Violation[];
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(key: ErrorKey, detail: string, options: ApiErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.key = key;
    this.code = options.code ?? ERROR_KEYS[key].code;
    this.violations = options.violations ?? [];
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_KEYS[this.key].status;
  }

  get title(): string {
    return ERROR_KEYS[this.key].title;
  }
}

/** A 400 naming the one field that is wrong. */
export function invalidArgument(fieldPath: string, message: string, ruleId: string, code?: ErrorCode): ApiError {
  return new ApiError('invalid-argument', `${fieldPath}: ${message}`, {
    violations: [{ fieldPath, message, ruleId }],
    ...(code ? { code } : {}),
  });
}
