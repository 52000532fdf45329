import fc from 'fast-check';
import { getIntrospectionQuery, type IntrospectionQuery, type IntrospectionTypeRef, type IntrospectionInputValue } from 'graphql';
import { api, liftLimits, newKeyPair, onboard, signHeaders, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { codes } from '../../src/domain/errorCatalogue.ts';
import { TEST_OPERATOR_TOKEN } from '../helpers/infra.ts';

/**
 * A black-box fuzzer for the whole service, built from what the service publishes about
 * itself: every operation of /v1/openapi.json and every root field of the GraphQL schema
 * (by introspection), so routes added later are covered without edits. It sends boundary
 * values (huge and negative numbers, 1e400, long and unicode strings, nulls, arrays for
 * scalars, deep nesting, missing and extra fields, foreign and truncated page tokens,
 * duplicate keys, wrong content types), unsigned, with a session, signed with an API key
 * and with the operator token, and checks every answer: no 5xx, every /v1 error an
 * application/problem+json body with a `code` its operation documents (`x-codes`), every
 * GraphQL error with `extensions.code` and none INTERNAL.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type JsonSchema = Record<string, any>;

export interface Operation {
  /** `REST METHOD /path` or `GraphQL query field`. */
  name: string;
  kind: 'rest' | 'graphql';
  method: string;
  path: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema }[];
  body?: JsonSchema;
  /** REST: the codes its `x-codes` documents; any other code it answers is a violation. */
  codes?: ReadonlySet<string>;
  /** GraphQL: the root type and field. */
  graphql?: { operation: 'query' | 'mutation'; field: string; args: readonly IntrospectionInputValue[]; selection: string };
}

export interface FuzzRequest {
  operation: string;
  method: string;
  target: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FuzzStats {
  requests: number;
  byStatus: Record<string, number>;
  byOperation: Record<string, number>;
  /** Every wrong answer counted; `violations` keeps the first few in full. */
  violationCount: number;
  serverErrors: number;
  violations: { request: FuzzRequest; status: number; reason: string; body: string }[];
}

const OPERATOR_PREFIX = '/operator/';

/** Redis command deadline while fuzzing (see bench/fuzz.ts). */
export const STORE_DEADLINE_MS = 2_000;

/** Reads /v1/openapi.json into operations (every method of every path). */
export async function restOperations(baseUrl: string): Promise<Operation[]> {
  const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, JsonSchema>> };
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const body = op.requestBody?.content?.['application/json']?.schema as JsonSchema | undefined;
      out.push({
        name: `REST ${method.toUpperCase()} ${path}`,
        kind: 'rest',
        method: method.toUpperCase(),
        path,
        parameters: ((op.parameters ?? []) as JsonSchema[]).map((p) => ({ name: p.name, in: p.in, required: !!p.required, schema: p.schema ?? {} })),
        ...(body ? { body } : {}),
        ...(op['x-codes'] ? { codes: new Set(Object.values(op['x-codes'] as Record<string, string[]>).flat()) } : {}),
      });
    }
  }
  return out;
}

/** Every Query and Mutation field, with a selection of its scalar leaves (subscriptions need a socket). */
export async function graphqlOperations(baseUrl: string, auth: Record<string, string>): Promise<{ operations: Operation[]; schema: IntrospectionQuery }> {
  const r = await api(baseUrl, 'POST', '/graphql', { query: getIntrospectionQuery() }, auth);
  const schema = r.body.data as IntrospectionQuery;
  const types = new Map(schema.__schema.types.map((t) => [t.name, t]));
  const selectionOf = (ref: IntrospectionTypeRef, depth: number): string => {
    const named = namedType(ref);
    const type = types.get(named);
    if (!type || type.kind === 'SCALAR' || type.kind === 'ENUM') return '';
    if (type.kind !== 'OBJECT' || depth >= 3) return '{ __typename }';
    const parts = ['__typename'];
    for (const f of type.fields) {
      if (f.args.some((a) => a.type.kind === 'NON_NULL')) continue;
      const inner = selectionOf(f.type, depth + 1);
      parts.push(inner ? `${f.name} ${inner}` : f.name);
      if (parts.length > 8) break;
    }
    return `{ ${parts.join(' ')} }`;
  };
  const operations: Operation[] = [];
  for (const [operation, typeName] of [['query', schema.__schema.queryType?.name], ['mutation', schema.__schema.mutationType?.name]] as const) {
    const root = typeName ? types.get(typeName) : undefined;
    if (!root || root.kind !== 'OBJECT') continue;
    for (const f of root.fields) {
      operations.push({
        name: `GraphQL ${operation} ${f.name}`,
        kind: 'graphql',
        method: 'POST',
        path: '/graphql',
        parameters: [],
        graphql: { operation, field: f.name, args: f.args, selection: selectionOf(f.type, 1) },
      });
    }
  }
  return { operations, schema };
}

function namedType(ref: IntrospectionTypeRef): string {
  let t: IntrospectionTypeRef = ref;
  while (t.kind === 'NON_NULL' || t.kind === 'LIST') t = (t as { ofType: IntrospectionTypeRef }).ofType;
  return (t as { name: string }).name;
}

function typeString(ref: IntrospectionTypeRef): string {
  if (ref.kind === 'NON_NULL') return `${typeString(ref.ofType)}!`;
  if (ref.kind === 'LIST') return `[${typeString(ref.ofType)}]`;
  return ref.name;
}

// ---------------------------------------------------------------------------------------
// Values.

/** Strings a careless service mishandles. */
const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    'é́',
    '𝕏🤖‮',
    '../../etc/passwd',
    '%00',
    '%ZZ',
    "' OR 1=1 --",
    '{"$gt":""}',
    '<script>',
    'null',
    'ak_00000000000000000000000000000000',
    '9223372036854775808',
    '-9223372036854775809',
    '18446744073709551616',
    '1e400',
    '-0',
    '0x10',
    '00',
    '1.5',
    '2262-04-11T23:47:16.854775808Z',
    '1677-09-21T00:12:43.145224191Z',
    '0000-01-01T00:00:00Z',
    'SOL-USDC',
    'BTC-USDC',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.nat({ max: 20_000 }).map((n) => 'a'.repeat(n)),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, -1e308, Number.MAX_VALUE, -Number.MAX_VALUE, 0.5, Number.MIN_VALUE, 4294967296, 2147483647),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const hostileIntString = fc.oneof(
  fc.constantFrom('0', '-1', '1', '9223372036854775807', '9223372036854775808', '-9223372036854775808', '-9223372036854775809', '18446744073709551615', '18446744073709551616', '2147483648', '1000000000000', '1e3', '01', '+1', ' 1', '1 ', '0.1'),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
);

/** Any JSON value, now and then very deep. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  hostileNumber,
  hostileString,
  fc.constant([]),
  fc.constant({}),
  fc.nat({ max: 3000 }).map((n) => nest(n)),
  fc.array(hostileString, { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), hostileString, { maxKeys: 4 }),
);

function nest(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** Marks where the request text gets a literal no JSON.stringify can write. */
const RAW = { big: '__RAW_1E400__', neg: '__RAW_NEG_1E400__', dup: '__RAW_DUP__' };

export class ValuePool {
  private readonly strings: string[] = [];
  readonly tokens: string[] = [];

  /** Keeps ids and page tokens seen in answers, to send them back in other places. */
  harvest(value: unknown, key = ''): void {
    if (typeof value === 'string') {
      if (/token$/i.test(key) && value) {
        if (this.tokens.length < 100) this.tokens.push(value);
      } else if (/(id|symbol|asset)$/i.test(key) && value && value.length < 100 && this.strings.length < 400) {
        this.strings.push(value);
      }
      return;
    }
    if (Array.isArray(value)) for (const v of value.slice(0, 20)) this.harvest(v, key);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value).slice(0, 50)) this.harvest(v, k);
  }

  seen(): fc.Arbitrary<string> {
    const strings = this.strings;
    return fc.nat().map((n) => (strings.length > 0 ? (strings[n % strings.length] as string) : 'none'));
  }

  pageToken(): fc.Arbitrary<string> {
    const tokens = this.tokens;
    return fc.tuple(fc.nat(), fc.constantFrom('foreign', 'truncated', 'flipped', 'garbage')).map(([n, how]) => {
      const t = tokens.length > 0 ? (tokens[n % tokens.length] as string) : 'AAAA';
      if (how === 'truncated') return t.slice(0, Math.max(0, t.length - 1 - (n % 7)));
      if (how === 'flipped') return `${t.slice(0, -2)}${t.at(-1) === 'A' ? 'B' : 'A'}${t.at(-1) ?? ''}`;
      if (how === 'garbage') return Buffer.from(String(n)).toString('base64url');
      return t;
    });
  }
}

/** Values for a JSON schema: mostly valid, and at any node now and then a hostile one. */
function fromSchema(schema: JsonSchema | undefined, pool: ValuePool, name = '', depth = 0): fc.Arbitrary<unknown> {
  const hostile = fc.oneof(anyJson, fc.constantFrom(RAW.big, RAW.neg), hostileIntString, /token/i.test(name) ? pool.pageToken() : pool.seen());
  if (!schema || depth > 6) return hostile;
  const valid = validFromSchema(schema, pool, name, depth);
  return fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: hostile, weight: 1 });
}

function validFromSchema(schema: JsonSchema, pool: ValuePool, name: string, depth: number): fc.Arbitrary<unknown> {
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => fromSchema(s, pool, name, depth + 1)));
  if (schema.allOf?.length) return fromSchema(schema.allOf[0], pool, name, depth + 1);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.const !== undefined) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      if (/token/i.test(name)) return pool.pageToken();
      const options: fc.Arbitrary<string>[] = [hostileString, pool.seen()];
      if (schema.pattern) {
        try {
          options.push(fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length < 200));
        } catch {
          // A pattern fast-check cannot generate from: other strings cover the field.
        }
      }
      if (schema.format === 'date-time') options.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
      return fc.oneof(...options);
    }
    case 'integer':
      return fc.oneof(fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 }), hostileNumber);
    case 'number':
      return hostileNumber;
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items, pool, name, depth + 1), { maxLength: schema.maxItems ? Math.min(schema.maxItems + 1, 60) : 4 });
    case 'object':
    default: {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required ?? []) as string[]);
      const entries = Object.entries(properties);
      if (entries.length === 0) return fc.dictionary(fc.string({ maxLength: 6 }), anyJson, { maxKeys: 2 });
      return fc
        .tuple(
          ...entries.map(([k, s]) => fc.option(fromSchema(s, pool, k, depth + 1), { nil: undefined, freq: required.has(k) ? 20 : 2 })),
          fc.option(fc.tuple(fc.constantFrom('extra', '__proto__', 'constructor', ''), anyJson), { freq: 8 }),
        )
        .map((values) => {
          const out: Record<string, unknown> = {};
          entries.forEach(([k], i) => {
            if (values[i] !== undefined) out[k] = values[i];
          });
          const extra = values[entries.length] as [string, unknown] | null;
          if (extra && extra[0] !== '__proto__') out[extra[0]] = extra[1];
          return out;
        });
    }
  }
}

/** Serialises a body, putting in the literals and shapes JSON.stringify cannot write. */
function bodyText(value: unknown, mangle: string): string {
  let text = JSON.stringify(value) ?? 'null';
  text = text.split(`"${RAW.big}"`).join('1e400').split(`"${RAW.neg}"`).join('-1e400');
  switch (mangle) {
    case 'truncated':
      return text.slice(0, Math.max(0, text.length - 3));
    case 'duplicate-key':
      return text.startsWith('{') && text.length > 2 ? `{"a":1,"a":2,${text.slice(1)}` : `{"a":1,"a":2}`;
    case 'deep':
      return `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    case 'bom':
      return `\ufeff${text}`;
    case 'trailing':
      return `${text} x`;
    case 'proto':
      return `{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}`;
    case 'empty':
      return '';
    default:
      return text;
  }
}

const MANGLES = ['none', 'none', 'none', 'none', 'none', 'none', 'truncated', 'duplicate-key', 'deep', 'bom', 'trailing', 'proto', 'empty'] as const;
const CONTENT_TYPES = ['application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/problem+json', ''] as const;
const AUTHS = ['none', 'session', 'session', 'apiKey', 'apiKey', 'apiKey', 'operator', 'garbage'] as const;
type AuthKind = (typeof AUTHS)[number];

/** encodeURIComponent, which throws on a lone surrogate: that one travels as its UTF-8 bytes. */
function encodeSegment(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
}

function pathValue(pool: ValuePool): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: pool.seen().map(encodeSegment), weight: 4 },
    { arbitrary: hostileString.map(encodeSegment), weight: 3 },
    { arbitrary: fc.constantFrom('%ZZ', '%', '..', '.', '%2e%2e', 'a%2Fb', '%C0%AF', 'x'.repeat(600)), weight: 1 },
  );
}

function queryValue(schema: JsonSchema, name: string, pool: ValuePool): fc.Arbitrary<string[]> {
  const one = fc.oneof(
    { arbitrary: validFromSchema(schema, pool, name, 0).map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '')), weight: 4 },
    { arbitrary: hostileIntString, weight: 1 },
    { arbitrary: hostileString, weight: 1 },
  );
  return fc.oneof({ arbitrary: one.map((v) => [v]), weight: 4 }, { arbitrary: fc.array(one, { minLength: 2, maxLength: 3 }), weight: 1 });
}

interface Plan {
  auth: AuthKind;
  method: string;
  target: string;
  contentType: string;
  body?: string;
}

/** One request to a /v1 operation, as data fast-check can generate and shrink. */
function restPlan(op: Operation, pool: ValuePool): fc.Arbitrary<Plan> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  return fc
    .record({
      auth: fc.constantFrom(...AUTHS),
      otherMethod: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), { freq: 15 }),
      path: fc.tuple(...pathParams.map(() => pathValue(pool)), fc.constant(null)),
      query: fc.tuple(...queryParams.map((p) => fc.option(queryValue(p.schema, p.name, pool), { nil: undefined, freq: p.required ? 20 : 2 })), fc.constant(null)),
      extraQuery: fc.option(fc.tuple(fc.constantFrom('extra', 'limit', 'pageToken', '__proto__', ''), hostileString), { freq: 8 }),
      body: op.body ? fc.option(fromSchema(op.body, pool, 'body'), { nil: undefined, freq: 20 }) : fc.option(anyJson, { nil: undefined, freq: 6 }),
      mangle: fc.constantFrom(...MANGLES),
      contentType: fc.constantFrom(...CONTENT_TYPES),
    })
    .map((r) => {
      let path = op.path;
      pathParams.forEach((p, i) => {
        path = path.replace(`{${p.name}}`, r.path[i] as string);
      });
      const search = new URLSearchParams();
      queryParams.forEach((p, i) => {
        for (const v of (r.query[i] as string[] | undefined) ?? []) search.append(p.name, v);
      });
      if (r.extraQuery) search.append(r.extraQuery[0], r.extraQuery[1]);
      const qs = search.toString();
      return {
        auth: r.auth,
        method: r.otherMethod ?? op.method,
        target: `${path}${qs ? `?${qs}` : ''}`,
        contentType: r.contentType,
        ...(r.body !== undefined ? { body: bodyText(r.body, r.mangle) } : {}),
      };
    });
}

/** GraphQL input values for a type, mostly of the type, sometimes not. */
function graphqlValue(ref: IntrospectionTypeRef, schema: IntrospectionQuery, pool: ValuePool, name: string, depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(anyJson, hostileIntString);
  if (depth > 5) return wrong;
  let right: fc.Arbitrary<unknown>;
  if (ref.kind === 'NON_NULL') return graphqlValue(ref.ofType, schema, pool, name, depth);
  if (ref.kind === 'LIST') right = fc.array(graphqlValue(ref.ofType, schema, pool, name, depth + 1), { maxLength: 60 }).map((a) => a.slice(0, 3 + (a.length % 58)));
  else {
    const type = schema.__schema.types.find((t) => t.name === ref.name);
    if (type?.kind === 'ENUM') right = fc.constantFrom(...type.enumValues.map((v) => v.name));
    else if (type?.kind === 'INPUT_OBJECT') {
      const fields = type.inputFields;
      right = fc.tuple(...fields.map((f) => fc.option(graphqlValue(f.type, schema, pool, f.name, depth + 1), { nil: undefined, freq: f.type.kind === 'NON_NULL' ? 20 : 3 }))).map((vs) => {
        const out: Record<string, unknown> = {};
        fields.forEach((f, i) => {
          if (vs[i] !== undefined) out[f.name] = vs[i];
        });
        return out;
      });
    } else {
      switch (ref.name) {
        case 'Int':
          right = fc.oneof(fc.integer({ min: -5, max: 1000 }), hostileNumber);
          break;
        case 'Float':
          right = hostileNumber;
          break;
        case 'Boolean':
          right = fc.boolean();
          break;
        case 'Int64':
          right = hostileIntString;
          break;
        case 'DateTime':
          right = fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), hostileString);
          break;
        default:
          right = /token|after|before|cursor/i.test(name) ? pool.pageToken() : fc.oneof(pool.seen(), hostileString);
      }
    }
  }
  return fc.oneof({ arbitrary: right, weight: 6 }, { arbitrary: wrong, weight: 1 }, { arbitrary: fc.constant(null), weight: 1 });
}

function graphqlPlan(op: Operation, schema: IntrospectionQuery, pool: ValuePool): fc.Arbitrary<Plan> {
  const g = op.graphql as NonNullable<Operation['graphql']>;
  const args = g.args;
  const varDefs = args.map((a) => `$${a.name}: ${typeString(a.type)}`).join(', ');
  const argUse = args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const document = `${g.operation} Fuzz${varDefs ? `(${varDefs})` : ''} { ${g.field}${argUse ? `(${argUse})` : ''} ${g.selection} }`;
  return fc
    .record({
      auth: fc.constantFrom(...AUTHS),
      variables: fc.tuple(...args.map((a) => fc.option(graphqlValue(a.type, schema, pool, a.name), { nil: undefined, freq: 8 })), fc.constant(null)),
      shape: fc.constantFrom('plain', 'plain', 'plain', 'plain', 'plain', 'aliases', 'deep', 'directives', 'get', 'get-bad-variables', 'batch', 'no-query', 'mangled'),
      mangle: fc.constantFrom(...MANGLES),
      n: fc.nat({ max: 5000 }),
    })
    .map((r) => {
      const variables: Record<string, unknown> = {};
      args.forEach((a, i) => {
        if (r.variables[i] !== undefined) variables[a.name] = r.variables[i];
      });
      let query = document;
      if (r.shape === 'aliases') query = `${g.operation} { ${Array.from({ length: 1 + (r.n % 60) }, (_, i) => `a${i}: __typename`).join(' ')} }`;
      if (r.shape === 'deep') query = `{ ${'['.repeat(r.n)} }`;
      if (r.shape === 'directives') query = `{ __typename ${'@skip(if: false) '.repeat(1 + (r.n % 40))} }`;
      if (r.shape === 'get' || r.shape === 'get-bad-variables') {
        const variablesParam = r.shape === 'get' ? encodeURIComponent(JSON.stringify(variables)) : ['%7B', '%5B', '1', 'null', '%22x%22'][r.n % 5];
        return { auth: r.auth, method: 'GET', target: `/graphql?query=${encodeURIComponent(query)}&variables=${variablesParam}`, contentType: '' };
      }
      const payload =
        r.shape === 'batch' ? [{ query, variables }, { query }] : r.shape === 'no-query' ? { variables } : { query, variables, ...(r.n % 9 === 0 ? { operationName: 'Nope' } : {}) };
      return { auth: r.auth, method: 'POST', target: '/graphql', contentType: r.shape === 'mangled' ? 'application/json' : 'application/json', body: bodyText(payload, r.shape === 'mangled' ? r.mangle : 'none') };
    });
}

// ---------------------------------------------------------------------------------------
// Sending and judging.

export interface FuzzIdentity {
  session: SignedIn;
  key: ClientKey;
}

/** A signed-in owner with every permission, its quotas lifted, and an API key. */
export async function fuzzIdentity(baseUrl: string): Promise<FuzzIdentity> {
  const session = await onboard(baseUrl);
  await liftLimits(baseUrl, session.rootAccountId, ['ACCOUNT_ADMIN', 'ACCOUNT_SECURITY', 'INTERNAL_TRANSFER', 'DEPOSIT_CREATE', 'WITHDRAW_SUBMIT', 'WITHDRAW_VALIDATE', 'GUARD_SIGN', 'TRADING_PLACE', 'TRADING_CANCEL']);
  return { session, key: await newApiKey(baseUrl, session) };
}

async function newApiKey(baseUrl: string, session: SignedIn): Promise<ClientKey> {
  const policy = await api(baseUrl, 'POST', '/v1/auth/api-policies', { name: 'fuzz', permissions: ['READ', 'TRADE', 'TRANSFER', 'WITHDRAW'] }, session.auth);
  const pair = newKeyPair();
  const r = await api(baseUrl, 'POST', '/v1/auth/api-keys', { label: 'fuzz', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId }, session.auth);
  if (r.status !== 200) throw new Error(`fuzz key: ${r.status} ${JSON.stringify(r.body)}`);
  return { keyId: r.body.apiKey.keyId, ...pair };
}

/** Answered before routing (a hostile path or request line): not the operation's answers. */
const UNROUTED = new Set<string>([codes.ROUTE_NOT_FOUND, codes.MALFORMED_URL, codes.MALFORMED_REQUEST, codes.URI_TOO_LONG, codes.HEADERS_TOO_LARGE, codes.REQUEST_TIMEOUT]);

/** Credential codes after which the fuzzer's own identity must be renewed (it fuzzed itself out). */
const LOST_CREDENTIAL = new Set(['INVALID_SESSION', 'API_KEY_REVOKED', 'API_KEY_EXPIRED', 'UNKNOWN_API_KEY', 'IP_NOT_ALLOWED', 'MISSING_PERMISSION', 'RATE_LIMIT_EXCEEDED']);

export class Fuzzer {
  readonly stats: FuzzStats = { requests: 0, byStatus: {}, byOperation: {}, violationCount: 0, serverErrors: 0, violations: [] };
  readonly pool = new ValuePool();
  private renewing: Promise<void> | undefined;
  private lost = 0;
  private counter = 0;

  constructor(
    private readonly baseUrl: string,
    private identity: FuzzIdentity,
    private readonly options: { maxViolations?: number } = {},
  ) {}

  plan(op: Operation, schema?: IntrospectionQuery): fc.Arbitrary<Plan> {
    return op.kind === 'rest' ? restPlan(op, this.pool) : graphqlPlan(op, schema as IntrospectionQuery, this.pool);
  }

  /** Sends one planned request and returns why its answer is wrong ('' when it is right). */
  async send(op: Operation, plan: Plan): Promise<string> {
    const headers: Record<string, string> = { 'x-forwarded-for': `10.9.${this.counter % 250}.${(this.counter++ >> 8) % 250}` };
    if (plan.contentType && plan.body !== undefined) headers['content-type'] = plan.contentType;
    const auth = plan.auth === 'operator' && !plan.target.startsWith(OPERATOR_PREFIX) && this.counter % 2 ? 'session' : plan.auth;
    if (auth === 'session') headers.authorization = `Bearer ${this.identity.session.token}`;
    if (auth === 'operator') headers.authorization = `Bearer ${TEST_OPERATOR_TOKEN}`;
    if (auth === 'garbage') headers.authorization = 'Bearer st_garbage';
    if (auth === 'apiKey') Object.assign(headers, signHeaders(this.identity.key, plan.method, plan.target, plan.body ?? ''));
    const request: FuzzRequest = { operation: op.name, method: plan.method, target: plan.target, headers, ...(plan.body !== undefined ? { body: plan.body } : {}) };
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${plan.target}`, {
        method: plan.method,
        headers,
        ...(plan.body !== undefined && !['GET', 'HEAD'].includes(plan.method) ? { body: plan.body } : {}),
      });
    } catch (err) {
      // A URL the client library itself refuses to send is not the service's answer.
      if (err instanceof TypeError && /URL|header|Request/i.test(String(err.message))) return '';
      return this.record(request, 0, `no answer: ${String(err)}`, '');
    }
    const text = await res.text();
    this.stats.requests++;
    this.stats.byStatus[res.status] = (this.stats.byStatus[res.status] ?? 0) + 1;
    this.stats.byOperation[op.name] = (this.stats.byOperation[op.name] ?? 0) + 1;
    const contentType = res.headers.get('content-type') ?? '';
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (body) this.pool.harvest(body);
    const reason = judge(plan.target, plan.method, res.status, contentType, body);
    if (reason) return this.record(request, res.status, reason, text);
    const code = body?.code ?? body?.errors?.[0]?.extensions?.code;
    // A request sent with another method than the operation's reaches another route, if any.
    if (op.codes && plan.method === op.method && res.status >= 400 && typeof body?.code === 'string' && !op.codes.has(code) && !UNROUTED.has(code)) {
      return this.record(request, res.status, `${code} is not among the operation's documented x-codes`, text);
    }
    if ((res.status === 401 || res.status === 403 || res.status === 429) && LOST_CREDENTIAL.has(code) && auth !== 'garbage' && auth !== 'none') await this.renewSoon();
    return '';
  }

  private record(request: FuzzRequest, status: number, reason: string, body: string): string {
    this.stats.violationCount++;
    if (status >= 500) this.stats.serverErrors++;
    if (this.stats.violations.length < (this.options.maxViolations ?? 50)) {
      this.stats.violations.push({ request: { ...request, ...(request.body ? { body: request.body.slice(0, 500) } : {}) }, status, reason, body: body.slice(0, 500) });
    }
    return `${reason}: ${request.method} ${request.target.slice(0, 200)} -> ${status} ${body.slice(0, 300)}`;
  }

  /** Every so many lost credentials, a fresh identity (the fuzzer revokes, detaches and throttles itself). */
  private async renewSoon(): Promise<void> {
    if (++this.lost % 25 !== 0) return;
    this.renewing ??= fuzzIdentity(this.baseUrl)
      .then((identity) => {
        this.identity = identity;
      })
      // Renewal is itself throttled now and then: the old identity serves meanwhile.
      .catch(() => undefined)
      .finally(() => {
        this.renewing = undefined;
      });
    await this.renewing;
  }
}

function judge(target: string, method: string, status: number, contentType: string, body: any): string {
  if (status >= 500) return `status ${status}`;
  const isProblem = contentType.startsWith('application/problem+json');
  // /graphql is also in the OpenAPI document: its answers are judged as GraphQL's whoever sent them.
  if (/^\/graphql(\?|$)/.test(target) && !isProblem && status < 500) {
    // HEAD answers GET's headers without its body: a GraphQL JSON error cannot be read.
    if (method === 'HEAD') return /json/.test(contentType) || status < 400 ? '' : `error with content-type "${contentType}"`;
    if (body === undefined) return status >= 400 ? 'GraphQL error without a JSON body' : '';
    const results = Array.isArray(body) ? body : [body];
    for (const result of results) {
      for (const e of (result?.errors ?? []) as { extensions?: { code?: unknown } }[]) {
        if (typeof e.extensions?.code !== 'string') return 'GraphQL error without extensions.code';
        if (e.extensions.code === 'INTERNAL') return 'GraphQL INTERNAL error';
      }
    }
    return '';
  }
  if (status >= 400) {
    if (!isProblem) return `error with content-type "${contentType}"`;
    if (method !== 'HEAD' && (typeof body?.code !== 'string' || body.status !== status)) return 'problem body without code or with another status';
  }
  return '';
}

/** Error-level lines of the service's pino output. */
export function errorLogLines(lines: readonly string[]): string[] {
  return lines.filter((l) => {
    try {
      return (JSON.parse(l) as { level?: number }).level! >= 50;
    } catch {
      return true;
    }
  });
}

/**
 * Runs `runsPerOperation` generated requests at every operation, `parallel` operations at a
 * time. With `stopOnViolation`, fast-check shrinks the first bad request and throws it.
 */
export async function runFuzz(
  fuzzer: Fuzzer,
  operations: Operation[],
  options: { runsPerOperation: number; parallel: number; seed: number; stopOnViolation: boolean; schema?: IntrospectionQuery },
): Promise<void> {
  const queue = [...operations];
  const worker = async () => {
    for (let op = queue.shift(); op; op = queue.shift()) {
      const current = op;
      await fc.assert(
        fc.asyncProperty(fuzzer.plan(current, options.schema), async (plan) => {
          const reason = await fuzzer.send(current, plan);
          if (reason && options.stopOnViolation) throw new Error(reason);
        }),
        { numRuns: options.runsPerOperation, seed: options.seed, endOnFailure: !options.stopOnViolation, verbose: 0 },
      );
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, worker));
}
