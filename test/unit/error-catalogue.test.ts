import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ApiError, ERROR_CATALOGUE, ERROR_KEYS, type ErrorCode, type ErrorKey, errors } from '../../src/domain/errorCatalogue.ts';
import { TransferCode } from '../../src/generated/prisma/enums.ts';
import { openApiDocument } from '../../src/transport/openapiDocument.ts';
import { NOT_OPERATION_ERRORS, OPERATION_ERRORS } from '../../src/transport/rest/operationErrors.ts';
import { reachableCodes } from '../helpers/errorReach.ts';

/**
 * Errors once (issue 28): the catalogue, docs/api-decisions.md ("Error codes") and the code
 * literals of src/ name the same codes, and each code keeps the one key (status) the
 * catalogue gives it.
 */

const root = path.resolve(import.meta.dirname, '../..');
const src = path.join(root, 'src');
const CATALOGUE_FILE = path.join(src, 'domain/errorCatalogue.ts');
const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/**
 * Codes src/ matches or sets on errors it never answers: each is translated into a
 * catalogue code (or, for zod, into violations) before a client sees anything.
 */
const OUTSIDE_CODES: { source: string; test: (code: string) => boolean }[] = [
  { source: 'Fastify (its own errors, and the JSON parser errors http.ts raises for problem.ts)', test: (c) => c.startsWith('FST_ERR_') },
  { source: 'Node (sockets, the HTTP parser)', test: (c) => ['ECONNRESET', 'ERR_HTTP_REQUEST_TIMEOUT', 'HPE_HEADER_OVERFLOW'].includes(c) },
  { source: 'pg (SQLSTATE unique_violation)', test: (c) => c === '23505' },
  { source: 'PostgreSQL at start-up (SQLSTATE: no such database, refused credentials, starting up), told as one line by startupFailure.ts', test: (c) => ['3D000', '28P01', '28000', '57P03'].includes(c) },
  { source: 'Prisma (unique constraint)', test: (c) => c === 'P2002' },
  { source: 'zod issue codes', test: (c) => ['custom', 'invalid_type', 'unrecognized_keys'].includes(c) },
  { source: 'ledger transfer codes (schema.prisma TransferCode), data and not errors', test: (c) => Object.hasOwn(TransferCode, c) },
];

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? (e.name === 'generated' ? [] : sources(path.join(dir, e.name))) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [])),
  );
  return nested.flat();
}

interface Site {
  file: string;
  line: number;
  code: string;
}

const literal = (node: ts.Node | undefined): string | undefined => (node && ts.isStringLiteralLike(node) ? node.text : undefined);
const isCodeRef = (e: ts.Expression): boolean => (ts.isIdentifier(e) && e.text === 'code') || ((ts.isPropertyAccessExpression(e) || ts.isPropertyAccessChain(e)) && e.name.text === 'code');
const isCatalogueRef = (e: ts.Node): e is ts.PropertyAccessExpression =>
  ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression) && (e.expression.text === 'errors' || e.expression.text === 'codes');

/**
 * What src/ (but the catalogue) says about codes: every string literal (values and literal
 * types alike), every `code: '...'` and `code === '...'` (and `!==`), every `new ApiError`,
 * and every `errors.X` / `codes.X` reference.
 */
let scanned: ReturnType<typeof scan> | undefined;
const codeSites = () => (scanned ??= scan());

async function scan(): Promise<{ strings: Site[]; literals: Site[]; comparisons: Site[]; constructions: Site[]; references: Site[] }> {
  const strings: Site[] = [];
  const literals: Site[] = [];
  const comparisons: Site[] = [];
  const constructions: Site[] = [];
  const references: Site[] = [];
  for (const file of await sources(src)) {
    if (file === CATALOGUE_FILE) continue;
    const sf = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const at = (node: ts.Node) => ({ file: path.relative(root, file), line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
    const visit = (node: ts.Node): void => {
      const text = literal(node);
      if (text !== undefined) strings.push({ ...at(node), code: text });
      if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'code') {
        const code = literal(node.initializer);
        if (code !== undefined) literals.push({ ...at(node), code });
      }
      if (ts.isBinaryExpression(node) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind)) {
        const code = isCodeRef(node.left) ? literal(node.right) : isCodeRef(node.right) ? literal(node.left) : undefined;
        if (code !== undefined) comparisons.push({ ...at(node), code });
      }
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ApiError') constructions.push({ ...at(node), code: node.getText(sf).slice(0, 60) });
      if (isCatalogueRef(node)) references.push({ ...at(node), code: node.name.text });
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { strings, literals, comparisons, constructions, references };
}

/** The rows of docs/api-decisions.md's "Error codes" table: code, status and when. */
async function documentedCodes(): Promise<Map<string, { status: number; when: string }>> {
  const doc = await readFile(path.join(root, 'docs/api-decisions.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Error codes'));
  if (!section) throw new Error('docs/api-decisions.md has no "## Error codes" section');
  const rows = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| (\d{3}) `[a-z-]+` \| ([^|]*) \|/gm)];
  return new Map(rows.map((m) => [m[1] as string, { status: Number(m[2]), when: (m[3] as string).trim() }]));
}

const isCatalogued = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CATALOGUE, code);
const where = (s: Site) => `${s.file}:${s.line} ${s.code}`;

describe('error catalogue', () => {
  it('lists every ERROR_KEYS default and gives each its own key', () => {
    for (const [key, { code }] of Object.entries(ERROR_KEYS)) expect(ERROR_CATALOGUE[code].key, code).toBe(key);
  });

  it('is the table of docs/api-decisions.md ("Error codes"), with the status of each code’s key and the same sentence', async () => {
    const documented = await documentedCodes();
    expect([...documented.keys()].sort()).toEqual([...codes].sort());
    const drifted = codes.filter((c) => documented.get(c)?.status !== ERROR_KEYS[ERROR_CATALOGUE[c].key].status || documented.get(c)?.when !== ERROR_CATALOGUE[c].when);
    expect(drifted).toEqual([]);
  });

  it('is the only place a code is written: no string literal in src/ (generated/ aside) equals a catalogue code', async () => {
    const { strings, references } = await codeSites();
    // The scan must see the sites it vouches for, or an empty list would pass.
    expect(strings.length).toBeGreaterThan(5000);
    expect(references.length).toBeGreaterThan(150);
    // A word that is a code and also a value of another vocabulary (a Prisma enum such as
    // LifecycleReason.DEADLINE_EXPIRED, a /collab close reason) is written through that
    // vocabulary's object or as `codes.X`, so that every bare literal here is a stray code.
    expect(strings.filter((s) => isCatalogued(s.code)).map(where)).toEqual([]);
  });

  it('builds every error with its code’s factory: no `new ApiError` outside the catalogue', async () => {
    const { constructions } = await codeSites();
    expect(constructions.map(where)).toEqual([]);
  });

  it('names no other code in src/: a `code:` or code comparison literal is one of the documented outside codes', async () => {
    const { literals, comparisons } = await codeSites();
    expect(literals.length + comparisons.length).toBeGreaterThan(10);
    const strangers = [...literals, ...comparisons].filter((s) => !OUTSIDE_CODES.some((o) => o.test(s.code)));
    expect(strangers.map(where)).toEqual([]);
  });

  it('has no entry that src/ does not use', async () => {
    const { references } = await codeSites();
    const used = new Set(references.map((r) => r.code));
    // An ERROR_KEYS default is what ApiError answers for its key when no code is named: in
    // use by construction even where no site names it (PERMISSION_DENIED, CONFLICT...).
    const defaults = new Set<string>(Object.values(ERROR_KEYS).map((k) => k.code));
    expect(codes.filter((c) => !used.has(c) && !defaults.has(c))).toEqual([]);
  });
});

describe('error factories', () => {
  it('build, for every code, an ApiError with that code and the catalogue’s key and status', () => {
    for (const code of codes) {
      const err = errors[code]('detail');
      expect(err).toBeInstanceOf(ApiError);
      expect({ code: err.code, key: err.key, status: err.status, message: err.message }, code).toEqual({
        code,
        key: ERROR_CATALOGUE[code].key,
        status: ERROR_KEYS[ERROR_CATALOGUE[code].key].status,
        message: 'detail',
      });
    }
  });

  it('pass violations, extensions and headers through', () => {
    const err = errors.SUBACCOUNT_NOT_FOUND('subaccount not found', {
      violations: [{ fieldPath: 'subaccountId', message: 'no such subaccount', ruleId: 'exists' }],
      extensions: { hint: 1 },
      headers: { 'Retry-After': '1' },
    });
    expect(err).toMatchObject({ status: 404, violations: [{ fieldPath: 'subaccountId', ruleId: 'exists' }], extensions: { hint: 1 }, headers: { 'Retry-After': '1' } });
  });

  it('type the code and key exactly, and a code outside the catalogue does not compile', () => {
    expectTypeOf(errors.ORDER_NOT_FOUND('x').code).toEqualTypeOf<'ORDER_NOT_FOUND'>();
    expectTypeOf(errors.ORDER_NOT_FOUND('x').key).toEqualTypeOf<'not-found'>();
    expectTypeOf(errors.RATE_LIMIT_EXCEEDED('x').key).toEqualTypeOf<'rate-limit-exceeded'>();
    // @ts-expect-error a code the catalogue does not list
    expect(new ApiError('not-found', 'x', { code: 'THING_NOT_FOUND' }).code).toBe('THING_NOT_FOUND');
    // @ts-expect-error no factory for a code the catalogue does not list
    expect(errors.THING_NOT_FOUND).toBeUndefined();
  });
});

describe('error responses of /v1/openapi.json', () => {
  it('list as x-codes the catalogue codes of their status, each with its sentence', async () => {
    const doc = await openApiDocument();
    const statusOf = new Map<string, number>();
    for (const pathItem of Object.values(doc.paths as Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>)) {
      for (const op of Object.values(pathItem)) {
        for (const [status, r] of Object.entries(op.responses)) if (r.$ref) statusOf.set(r.$ref.split('/').pop() as string, Number(status));
      }
    }
    const responses = (doc.components as { responses: Record<string, { 'x-codes': { code: string; description: string }[] }> }).responses;
    expect([...statusOf.values()].sort()).toEqual([400, 401, 403, 404, 409, 413, 415, 429, 503]);
    for (const [name, status] of statusOf) {
      const expected = codes.filter((c) => ERROR_KEYS[ERROR_CATALOGUE[c].key].status === status).map((code) => ({ code, description: ERROR_CATALOGUE[code].when }));
      expect(responses[name]?.['x-codes'], name).toEqual(expected);
    }
    expect(responses.InvalidArgument?.['x-codes'].map((c) => c.code)).toContain('UNKNOWN_SYMBOL');
  });
});


describe('documented errors of each /v1 operation', () => {
  type Operation = { operationId?: string; 'x-codes'?: Record<string, string[]> };
  const operations = async () =>
    Object.values((await openApiDocument()).paths as Record<string, Record<string, Operation>>)
      .flatMap((pathItem) => Object.values(pathItem))
      .filter((op): op is Operation & { operationId: string } => typeof op.operationId === 'string' && op['x-codes'] !== undefined);
  const documented = (op: Operation) => new Set(Object.values(op['x-codes'] ?? {}).flat());

  it('list, per status, the common codes of the operation’s auth mode and its own, each code under its own status', async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(90);
    expect(Object.keys(OPERATION_ERRORS).sort()).toEqual(ops.map((op) => op.operationId).sort());
    for (const op of ops) {
      for (const [status, list] of Object.entries(op['x-codes'] ?? {})) {
        expect(list.filter((c) => !isCatalogued(c) || String(ERROR_KEYS[ERROR_CATALOGUE[c].key].status) !== status), `${op.operationId} ${status}`).toEqual([]);
      }
      for (const code of OPERATION_ERRORS[op.operationId] ?? []) expect(documented(op).has(code), `${op.operationId} ${code}`).toBe(true);
    }
  });

  it('cover every catalogue code, but those no /v1 operation gives (NOT_OPERATION_ERRORS)', async () => {
    const all = new Set([...(await operations()).flatMap((op) => [...documented(op)]), ...NOT_OPERATION_ERRORS]);
    expect(codes.filter((c) => !all.has(c))).toEqual([]);
  });

  it('include every code the route’s handler can reach in the code (test/helpers/errorReach.ts)', async () => {
    const reach = reachableCodes(root);
    const ops = new Map((await operations()).map((op) => [op.operationId, documented(op)]));
    expect(reach.size).toBe(ops.size);
    // The walk must find the codes it vouches for, or empty sets would pass.
    expect([...reach.values()].reduce((n, set) => n + set.size, 0)).toBeGreaterThan(500);
    const missing = [...reach].flatMap(([op, reached]) => [...reached].filter((c) => !ops.get(op)?.has(c)).map((c) => `${op} ${c}`));
    expect(missing).toEqual([]);
  }, 300_000);
});
