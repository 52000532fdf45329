/** The kinds of error: each is one HTTP status, with its title and the code it answers when its site names none. */
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

/**
 * Every code the service answers, REST (`code` of the problem body) and GraphQL
 * (`extensions.code`) alike, with its key (so its HTTP status) and when it is given.
 * ApiErrorOptions takes only these codes, so a code the catalogue does not list does
 * not compile; docs/api-decisions.md ("Error codes") lists them for clients, and
 * test/unit/error-catalogue.test.ts keeps the three in step. New code creates errors
 * with `errors` below, one factory per code.
 *
 * Not here: Fastify's FST_* codes, and the codes of pg, Prisma, Node and ioredis errors,
 * which the service matches and translates but never answers; ledger transfer codes
 * (schema.prisma TransferCode), which are data; and the close reasons of /collab sockets.
 */
export const ERROR_CATALOGUE = {
  // The defaults of ERROR_KEYS: what an ApiError answers when its site names no code of its own.
  BAD_REQUEST: { key: 'invalid-argument', when: 'The generic 400: a request field is missing, mistyped or out of range; `violations` names each field (fieldPath, ruleId), so fix those and resend.' },
  UNAUTHENTICATED: { key: 'unauthenticated', when: 'The generic 401: the caller could not be identified (also what a graphql-ws socket answers once its credentials stop being valid); sign in or sign the request again.' },
  PERMISSION_DENIED: { key: 'permission-denied', when: 'The generic 403: the caller is known but may not do this (every site names a more precise code today).' },
  NOT_FOUND: { key: 'not-found', when: 'The generic 404: a resource named by the request does not exist or is not visible to the caller (every site names a more precise code today).' },
  METHOD_NOT_ALLOWED: { key: 'method-not-allowed', when: 'The generic 405; no operation answers it today: a path called with a method it does not serve gets 404 ROUTE_NOT_FOUND.' },
  REQUEST_TIMEOUT: { key: 'request-timeout', when: 'The generic 408: the request’s headers or body did not arrive within the server’s deadlines; the connection is closed.' },
  CONFLICT: { key: 'conflict', when: 'The generic 409: the request conflicts with the resource’s current state (every site names a more precise code today).' },
  PAYLOAD_TOO_LARGE: { key: 'payload-too-large', when: 'The generic 413: the request body is larger than BODY_LIMIT_BYTES.' },
  URI_TOO_LONG: { key: 'uri-too-long', when: 'A 414: the URL, or one path segment of it, is longer than any resource id can be.' },
  UNSUPPORTED_MEDIA_TYPE: { key: 'unsupported-media-type', when: 'The generic 415: the request body is not application/json.' },
  RATE_LIMIT_EXCEEDED: { key: 'rate-limit-exceeded', when: 'A 429: a rate-limit pool of the caller is empty; wait for the Retry-After / RateLimit-Reset headers before retrying.' },
  HEADERS_TOO_LARGE: { key: 'request-header-fields-too-large', when: 'The generic 431: the request line and headers exceed Node’s size limit; the connection is closed.' },
  INTERNAL: { key: 'internal', when: 'The generic 500: an unexpected failure on the server; the request may be retried, and the requestId reported if it persists.' },
  UNAVAILABLE: { key: 'unavailable', when: 'The generic 503: a dependency is briefly unavailable; retry with backoff (every site names a more precise code today).' },

  // HTTP transport: requests refused before any operation runs.
  MALFORMED_REQUEST: { key: 'invalid-argument', when: 'The request is not valid HTTP/1.1, or Fastify cannot route it.' },
  MALFORMED_URL: { key: 'invalid-argument', when: 'The request path is not a valid URL (bad percent-encoding).' },
  ROUTE_NOT_FOUND: { key: 'not-found', when: 'No route answers this method and path.' },
  NOT_READY: { key: 'unavailable', when: '/readyz: the database or Redis is not reachable, or a trading journal entry is quarantined (named in `checks`).' },

  // Authentication and access: who is calling and what they may do.
  CREDENTIALS_REQUIRED: { key: 'unauthenticated', when: 'The operation needs a caller, and the request carries neither a session token nor a signed API-key request.' },
  OPERATOR_TOKEN_REQUIRED: { key: 'unauthenticated', when: 'An operator route was called without the `Authorization: Bearer <OPERATOR_TOKEN>` header (or the operator API is off).' },
  AMBIGUOUS_CREDENTIALS: { key: 'unauthenticated', when: 'The request carries both a session token and API-key headers; send one kind only.' },
  INCOMPLETE_SIGNATURE: { key: 'unauthenticated', when: 'Some but not all of X-API-KEY-ID, X-API-TIMESTAMP and X-API-SIGNATURE were sent.' },
  INVALID_SESSION: { key: 'unauthenticated', when: 'The session token is malformed, unknown, revoked or expired; sign in again.' },
  INVALID_TIMESTAMP: { key: 'unauthenticated', when: 'X-API-TIMESTAMP is not epoch milliseconds.' },
  TIMESTAMP_OUT_OF_WINDOW: { key: 'unauthenticated', when: 'X-API-TIMESTAMP is too far from the server clock; correct the clock with `serverTimeMs` from the body and sign again.' },
  UNKNOWN_API_KEY: { key: 'unauthenticated', when: 'X-API-KEY-ID names no API key.' },
  API_KEY_REVOKED: { key: 'unauthenticated', when: 'The signing API key was revoked.' },
  API_KEY_EXPIRED: { key: 'unauthenticated', when: 'The signing API key is past its expiry.' },
  INVALID_SIGNATURE: { key: 'unauthenticated', when: 'X-API-SIGNATURE does not verify for the request, or a wallet sign-in signature is not the address’s.' },
  REPLAYED_REQUEST: { key: 'unauthenticated', when: 'This exact signed request was already accepted once; sign a new request with a fresh timestamp.' },
  IP_NOT_ALLOWED: { key: 'permission-denied', when: 'The client address is not in the API key’s IP whitelist.' },
  INVALID_SIGN_IN: { key: 'unauthenticated', when: 'The wallet sign-in message is unknown, expired or already used; ask for a new challenge.' },
  CREDENTIALS_REVOKED: { key: 'unauthenticated', when: 'A GraphQL subscription ends because the credentials of its connection were revoked or expired.' },
  SESSION_REQUIRED: { key: 'permission-denied', when: 'The operation (key management, sign-in state, logout) needs a wallet session, not an API key.' },
  MISSING_PERMISSION: { key: 'permission-denied', when: 'The API key’s policy does not grant the permission the operation needs.' },
  KEY_SCOPE_VIOLATION: { key: 'permission-denied', when: 'The API key is restricted to another subaccount than the one the request acts on (or its scope changed during a subscription).' },
  SUBACCOUNT_NOT_FOUND: { key: 'not-found', when: '`subaccountId` names no subaccount of the caller.' },
  ACCOUNT_NOT_FOUND: { key: 'not-found', when: 'An account id (operator routes, whiteboard members) names no active root account.' },
  TERMS_NOT_ACCEPTED: { key: 'permission-denied', when: 'The caller’s root account has not accepted the current terms version; accept them (spec 5.4) and retry.' },

  // Shared infrastructure and idempotency.
  RATE_LIMIT_AUTHORITY_UNAVAILABLE: { key: 'unavailable', when: 'The shared rate-limit store (Redis) did not answer in time, so the mutation was not admitted; retry shortly.' },
  DATABASE_UNAVAILABLE: { key: 'unavailable', when: 'PostgreSQL could not be reached or did not answer in time; retry.' },
  INVALID_CHARACTER: { key: 'invalid-argument', when: 'A text value holds a character the database cannot store (U+0000, a lone surrogate); it is refused, not altered.' },
  CONFLICT_IDEMPOTENCY_KEY_REUSED: { key: 'conflict', when: 'The requestId / idempotencyKey was already used with a different request body; use a new key.' },
  CONFLICT_REQUEST_IN_PROGRESS: { key: 'conflict', when: 'A request with this requestId is still being processed; retry the same request later to get its answer.' },

  // Orders.
  UNKNOWN_SYMBOL: { key: 'invalid-argument', when: 'The symbol is not a listed trading pair.' },
  NO_REFERENCE_PRICE: { key: 'invalid-argument', when: 'A market order meets an empty opposite book without clientRefPrice, or a trigger needs a last price and the pair has not traded yet.' },
  POST_ONLY_WOULD_TAKE: { key: 'invalid-argument', when: 'A post-only order (or a price change of one) would trade on arrival; nothing is reserved.' },
  TOO_MANY_OPEN_ORDERS: { key: 'invalid-argument', when: 'The account already has the maximum number of open orders; cancel some first.' },
  INSUFFICIENT_BALANCE: { key: 'invalid-argument', when: 'The available balance does not cover the order’s reservation or the transfer’s amount.' },
  DEPOSIT_NOT_FINAL: { key: 'invalid-argument', when: 'Part of the balance comes from deposits not yet final on their chain, and it cannot leave the account before `untilMs`.' },
  CONFLICT_DUPLICATE_CLIENT_ORDER_ID: { key: 'conflict', when: 'This clientOrderId is still retained by an earlier order of the account; use a new one.' },
  ORDER_NOT_FOUND: { key: 'not-found', when: 'No open order of the account has this orderId / clientOrderId (or it ended, e.g. expired, before a modify).' },
  ORDER_STATE_CHANGED: { key: 'conflict', when: 'The order ended while a change to it (attached risk legs) was on its way; read it and send the change again.' },

  // Refusals of the matching engine (domain/matching RejectReason), answered with the reason as the code.
  INVALID_MODIFY: { key: 'invalid-argument', when: 'Matching engine: a modify that changes neither quantity nor price.' },
  INVALID_QTY: { key: 'invalid-argument', when: 'Matching engine: a quantity that is not positive.' },
  INVALID_QTY_STEP: { key: 'invalid-argument', when: 'Matching engine: a quantity that is not a multiple of the pair’s quantity step.' },
  INVALID_PRICE: { key: 'invalid-argument', when: 'Matching engine: a price that is not positive.' },
  INVALID_TICK: { key: 'invalid-argument', when: 'Matching engine: a price that is not a multiple of the pair’s tick size.' },
  INVALID_SIDE: { key: 'invalid-argument', when: 'Matching engine’s own check of a new order’s side; the request schema refuses a bad side first, so clients should not see it.' },
  INVALID_ORDER_TYPE: { key: 'invalid-argument', when: 'Matching engine’s own check of a new order’s type / time in force / post-only combination; the request schema refuses these first.' },
  INVALID_STP_MODE: { key: 'invalid-argument', when: 'Matching engine’s own check of the self-trade prevention mode; the request schema refuses a bad mode first.' },
  INVALID_EXPIRY: { key: 'invalid-argument', when: 'Matching engine’s own check that GTD and only GTD carries an expiry; the request schema refuses these first.' },
  INVALID_NOTIONAL_CAP: { key: 'invalid-argument', when: 'Matching engine: a quote-notional cap on anything but a market BUY; a new order’s maxQuoteDebit too small is answered as BAD_REQUEST on that field instead.' },
  DUPLICATE_ORDER_ID: { key: 'invalid-argument', when: 'Matching engine’s own guard against an order id it already holds; ids are assigned by the engine, so clients should not see it.' },

  // The trading engine’s commit and read path: transient, nothing was applied unless said.
  COMMIT_FAILED: { key: 'unavailable', when: 'The change could not be confirmed as durable within COMMIT_DEADLINE_MS; look it up (e.g. by clientOrderId) before retrying.' },
  BATCH_ABORTED: { key: 'unavailable', when: 'An internal error aborted the engine batch this change was in; nothing was applied, retry.' },
  REBUILDING: { key: 'unavailable', when: 'The trading state is being rebuilt after a failed commit; retry shortly.' },
  RETRY: { key: 'unavailable', when: 'A read the change depends on was overtaken by a refresh (duplicate clientOrderId check, withdrawal state); nothing was applied, retry.' },
  PROJECTION_LAGGING: { key: 'unavailable', when: 'The read tables are behind the latest trading changes (or a journal entry touching the account is quarantined); retry.' },
  QUARANTINED_ENTRY_NOT_FOUND: { key: 'not-found', when: 'Operator: no quarantined trading journal entry has this sequence.' },
  QUARANTINED_ENTRY_BEHIND: { key: 'conflict', when: 'Operator: the entry waits behind an earlier quarantined entry; re-apply that one first.' },

  // Event streams (GraphQL subscriptions, server-sent events).
  STREAM_RESUME_TOO_OLD: { key: 'invalid-argument', when: 'A subscription’s `after` is older than the journal keeps; read the current state, then subscribe without `after`.' },
  SUBSCRIBER_TOO_SLOW: { key: 'rate-limit-exceeded', when: 'A subscription ends because its client fell too far behind (SUBSCRIBER_MAX_PENDING_*); reconnect and resume with `after`.' },
  RESYNC_REQUIRED: { key: 'unavailable', when: 'A subscription ends because events of its stream may have been missed; reload the state and subscribe again.' },
  STREAM_CONNECTIONS_PER_IP: { key: 'rate-limit-exceeded', when: 'Too many graphql-ws sockets and server-sent-event streams are open from this client address (STREAM_CONNECTIONS_PER_IP); close some.' },
  STREAM_CONNECTIONS_PER_CREDENTIAL: { key: 'rate-limit-exceeded', when: 'Too many streaming connections are open for this API key or session (STREAM_CONNECTIONS_PER_CREDENTIAL); close some.' },
  SUBSCRIPTIONS_PER_CONNECTION: { key: 'rate-limit-exceeded', when: 'Too many subscriptions run at once on one graphql-ws socket (STREAM_SUBSCRIPTIONS_PER_CONNECTION).' },

  // Triggers (conditional orders).
  TRIGGER_NOT_FOUND: { key: 'not-found', when: 'No trigger (or no live trigger, for a change) of the account has this id.' },
  TRIGGER_NOT_AMENDABLE: { key: 'conflict', when: 'The trigger’s status does not allow amending it (it fired or ended).' },
  TRIGGER_NOT_PAUSABLE: { key: 'conflict', when: 'The trigger’s status does not allow pausing or resuming it.' },
  TRIGGER_WOULD_FIRE_IMMEDIATELY: { key: 'invalid-argument', when: 'The last price is already at or through triggerPrice: the trigger would fire at once, so it is refused.' },
  CONFLICT_CLIENT_TRIGGER_ID_REUSED: { key: 'conflict', when: 'clientTriggerId is already used by a trigger with different parameters.' },
  TOO_MANY_TRIGGERS: { key: 'invalid-argument', when: 'The account already has the maximum number of live standalone triggers; cancel some first.' },
  SLICE_TOO_SMALL: { key: 'invalid-argument', when: 'A TWAP’s slice quantity would be below the pair’s minimum quantity; use fewer slices or a larger total.' },

  // API keys.
  API_KEY_NOT_FOUND: { key: 'not-found', when: 'No API key visible to the caller has this keyId.' },
  API_POLICY_NOT_FOUND: { key: 'not-found', when: 'The API policy named for a key does not exist.' },
  CONFLICT_API_KEY_REVOKED: { key: 'conflict', when: 'A revoked API key cannot be changed.' },
  CONFLICT_DUPLICATE_PUBLIC_KEY: { key: 'conflict', when: 'The public key is already registered (keys are unique platform-wide); generate a new key pair.' },
  CONFLICT_STALE_REVISION: { key: 'conflict', when: 'expectedRevision is not the resource’s current revision (API key, address-book entry, chart layer); read it again and resend.' },

  // Address book.
  ADDRESS_BOOK_ENTRY_NOT_FOUND: { key: 'not-found', when: 'No address-book entry of the account has this id.' },
  ADDRESS_BOOK_TAG_NOT_FOUND: { key: 'not-found', when: 'A tag named in the request does not exist in the address book.' },
  CONFLICT_DUPLICATE_TAG: { key: 'conflict', when: 'A tag with this name already exists in the address book.' },

  // Chain flows: deposits and withdrawals.
  FLOW_NOT_FOUND: { key: 'not-found', when: 'No deposit or withdrawal flow (or withdrawal awaiting broadcast) visible to the caller has this id.' },
  FLOW_STATE_CONFLICT: { key: 'conflict', when: 'The withdrawal’s state does not allow this step (cancel only before broadcast, drop only after); it may have moved meanwhile.' },
  FLOW_NOT_DROPPABLE: { key: 'conflict', when: 'Operator: only a deposit still confirming (SOURCE_CONFIRMING) can be dropped.' },
  DEPOSIT_ADDRESS_NOT_FOUND: { key: 'not-found', when: 'Simulated chain: no deposit address is assigned at this chain and address.' },
  API_KEY_REQUIRED: { key: 'permission-denied', when: 'Create Trading Withdraw (API-key variant) was called with a wallet session; sessions use the `:wallet` variant.' },
  INVALID_PAYLOAD_SIGNATURE: { key: 'unauthenticated', when: 'payloadSignature is not the calling API key’s Ed25519 signature of the payload bytes.' },
  INVALID_WALLET_SIGNATURE: { key: 'unauthenticated', when: 'payloadSignature is not signerWallet’s EIP-191 signature of the authorization message.' },
  WALLET_NOT_ACCOUNT_OWNER: { key: 'permission-denied', when: 'signerWallet is not the wallet that owns the account.' },
  PAYLOAD_NOT_CANONICAL: { key: 'invalid-argument', when: 'The withdraw payload is not in canonical form (sorted keys, no whitespace, assetId an integer, other values strings).' },
  AMOUNT_ENCODING: { key: 'invalid-argument', when: 'The withdraw payload’s amount is not a positive integer count of 1e-18 units (no decimal point, no leading zeros).' },
  DEADLINE_EXPIRED: { key: 'invalid-argument', when: 'The withdraw authorization’s deadlineTsSec has passed; sign a new one.' },
  DEADLINE_TOO_FAR: { key: 'invalid-argument', when: 'The withdraw authorization’s deadlineTsSec is further ahead than allowed.' },
  UNKNOWN_ASSET: { key: 'invalid-argument', when: 'The withdraw payload’s assetId names no listed asset.' },
  AMOUNT_PRECISION: { key: 'invalid-argument', when: 'The amount has more precision than the asset carries on the destination network.' },
  AMOUNT_BELOW_MINIMUM: { key: 'invalid-argument', when: 'The amount is below the asset’s minimum withdrawal on that network.' },
  ASSET_NOT_ON_NETWORK: { key: 'invalid-argument', when: 'The asset cannot be withdrawn to the destination network.' },
  DESTINATION_INVALID: { key: 'invalid-argument', when: 'The destination address is not valid for the destination chain.' },
  DESTINATION_NOT_FOUND: { key: 'invalid-argument', when: 'A TO_FUNDING destination names no account (give the receiving account’s smart-account address or id).' },
  DESTINATION_INTERNAL: { key: 'invalid-argument', when: 'The external destination is a deposit address of this exchange; withdraw TO_FUNDING to the receiving account instead (instant, no network fee).' },
  DESTINATION_NOT_ALLOWLISTED: { key: 'permission-denied', when: 'The account withdraws only to its address book, and this destination is not in it.' },
  ALLOW_LIST_SESSION_REQUIRED: { key: 'permission-denied', when: 'Only a wallet session, not an API key, can switch the withdrawal allow-list off.' },
  CONFLICT_NONCE_REUSED: { key: 'conflict', when: 'The withdraw nonce was already used by another withdrawal of the account; sign with a new nonce.' },

  // Charts and layouts.
  CHART_LAYER_NOT_FOUND: { key: 'not-found', when: 'No chart layer of the caller has this id.' },
  CHART_DRAWING_NOT_FOUND: { key: 'not-found', when: 'No drawing of the layer has this id.' },
  CHART_SYNC_WINDOW_EXPIRED: { key: 'invalid-argument', when: 'updatedSinceMs is older than the tombstone retention; list the drawings from the start.' },
  LAYOUT_NOT_FOUND: { key: 'not-found', when: 'No layout of the caller has this id.' },
  LAYOUT_TEMPLATE_NOT_FOUND: { key: 'not-found', when: 'No layout template visible to the caller has this id.' },
  LAYOUT_TEMPLATE_VERSION_NOT_FOUND: { key: 'not-found', when: 'The layout template has no such version.' },

  // Whiteboards.
  WHITEBOARD_NOT_FOUND: { key: 'not-found', when: 'No whiteboard visible to the caller has this id.' },
  WHITEBOARD_VERSION_NOT_FOUND: { key: 'not-found', when: 'The whiteboard has no version with this id.' },
  WHITEBOARD_MANAGE_DENIED: { key: 'permission-denied', when: 'Managing the board (members, settings) needs the MANAGER or OWNER role.' },
  WHITEBOARD_EDIT_DENIED: { key: 'permission-denied', when: 'The change needs the EDITOR role or higher on a board that is not archived.' },
  WHITEBOARD_DELETE_DENIED: { key: 'permission-denied', when: 'Only the board’s owner deletes it.' },
  WHITEBOARD_LIMIT_REACHED: { key: 'conflict', when: 'The account already owns the maximum number of boards (archived ones count); delete one first.' },
  DOCUMENT_TOO_LARGE: { key: 'conflict', when: 'Restoring the version would make the board’s document larger than its size limit.' },
  BOARD_UNREADABLE: { key: 'unavailable', when: 'The stored state of the board cannot be decoded; the board cannot be served until an operator repairs it.' },

  // GraphQL documents (answered in `extensions.code`).
  BAD_USER_INPUT: { key: 'invalid-argument', when: 'GraphQL: graphql-js refused the operation’s variables (missing, mistyped, or a scalar that does not parse).' },
  GRAPHQL_PARSE_FAILED: { key: 'invalid-argument', when: 'GraphQL: the document is not valid GraphQL syntax.' },
  GRAPHQL_VALIDATION_FAILED: { key: 'invalid-argument', when: 'GraphQL: the document does not validate against the schema (unknown fields, wrong arguments, too deep).' },
  QUERY_COST_EXCEEDED: { key: 'invalid-argument', when: 'GraphQL: the operation’s estimated cost is over the limit; ask for smaller pages (first) or fewer fields.' },
} as const satisfies Record<string, { key: ErrorKey; when: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface Violation {
  /** Request field path using canonical field names, e.g. `order.limitGtc.price`. */
  fieldPath: string;
  message: string;
  /** Stable id for programmatic matching, e.g. `required`, `max-length`, `int64`. */
  ruleId: string;
}

export interface ApiErrorOptions {
  /** One of the catalogue's; the key's default when absent. */
  code?: ErrorCode;
  violations?: Violation[];
  /** Extra members rendered into the body (e.g. `rate_limit`). */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type every layer throws. Transports render it (REST as
 * application/problem+json, GraphQL as extensions); nothing else produces an error body.
 * Only the factories below construct it (test/unit/error-catalogue.test.ts).
 */
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

/** An error built by its code's factory: the compiler knows its code and its key. */
export type CataloguedError<C extends ErrorCode> = ApiError & { readonly code: C; readonly key: (typeof ERROR_CATALOGUE)[C]['key'] };

export type ErrorFactory<C extends ErrorCode> = (detail: string, options?: Omit<ApiErrorOptions, 'code'>) => CataloguedError<C>;

function factory<C extends ErrorCode>(code: C): ErrorFactory<C> {
  const { key } = ERROR_CATALOGUE[code];
  // The constructor types code and key as their unions; this pair is the catalogue's own.
  return (detail, options = {}) => new ApiError(key, detail, { ...options, code }) as CataloguedError<C>;
}

/**
 * The way new code creates an error: `throw errors.ORDER_NOT_FOUND('no open order has this
 * id')`, with violations, extensions or headers as the second argument. The key (so the
 * status) comes from the catalogue, so a site cannot pair a code with another status.
 */
export const errors = Object.freeze(Object.fromEntries((Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((code) => [code, factory(code)]))) as {
  readonly [C in ErrorCode]: ErrorFactory<C>;
};

/**
 * Each code as a value, for a site that carries a code as data rather than throwing it: an
 * engine's reject reason recorded in its journal and events, a code compared against.
 */
export const codes = Object.freeze(Object.fromEntries((Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((code) => [code, code]))) as { readonly [C in ErrorCode]: C };
