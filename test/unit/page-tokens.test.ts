import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { PageTokens, canonicalJson, type PageBinding } from '../../src/services/pageTokens.ts';

const binding: PageBinding = { operation: 'listThings', caller: 'acct1', filters: { kind: 'A', symbols: ['X'] } };

function expectInvalid(fn: () => unknown, fieldPath = 'pageToken') {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).key).toBe('invalid-argument');
    expect((err as ApiError).violations[0]?.fieldPath).toBe(fieldPath);
    return;
  }
  throw new Error('expected invalid-argument');
}

describe('page tokens', () => {
  const tokens = new PageTokens('a'.repeat(64));

  it('round-trips a cursor for the same caller and filters', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer(), (id, n) => {
        const token = tokens.encode(binding, { id, n });
        expect(tokens.decode(token, binding)).toEqual({ id, n });
      }),
      { numRuns: 50 },
    );
  });

  it('is opaque: the cursor does not appear in the token', () => {
    const token = tokens.encode(binding, { createdAt: '2026-11-22T10:00:00Z', id: 'secret-id' });
    expect(Buffer.from(token, 'base64url').toString('latin1')).not.toContain('secret-id');
  });

  it('treats absent and empty tokens as the first page', () => {
    expect(tokens.decode(undefined, binding)).toBeUndefined();
    expect(tokens.decode('', binding)).toBeUndefined();
  });

  it('refuses a token replayed by another caller', () => {
    const token = tokens.encode(binding, { id: '1' });
    expectInvalid(() => tokens.decode(token, { ...binding, caller: 'acct2' }));
  });

  it('refuses a token replayed with other filters or another operation', () => {
    const token = tokens.encode(binding, { id: '1' });
    expectInvalid(() => tokens.decode(token, { ...binding, filters: { kind: 'B', symbols: ['X'] } }));
    expectInvalid(() => tokens.decode(token, { ...binding, operation: 'listOthers' }));
  });

  it('binds filters by value, not by key order', () => {
    const token = tokens.encode(binding, { id: '1' });
    expect(tokens.decode(token, { ...binding, filters: { symbols: ['X'], kind: 'A' } })).toEqual({ id: '1' });
  });

  it('refuses any tampered byte', () => {
    const token = tokens.encode(binding, { id: '1' });
    const raw = Buffer.from(token, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const bad = Buffer.from(raw);
      bad[i] = (bad[i] as number) ^ 1;
      expectInvalid(() => tokens.decode(bad.toString('base64url'), binding));
    }
  });

  it('refuses tokens of another secret and garbage, naming the given field', () => {
    const other = new PageTokens('b'.repeat(64));
    expectInvalid(() => tokens.decode(other.encode(binding, { id: '1' }), binding, 'page_token'), 'page_token');
    expectInvalid(() => tokens.decode('garbage', binding, 'page_token'), 'page_token');
  });
});

describe('canonicalJson', () => {
  it('is insensitive to key order and encodes bigints as strings', () => {
    expect(canonicalJson({ b: 1n, a: [2, { d: null, c: undefined }] })).toBe('{"a":[2,{"d":null}],"b":"1"}');
  });
});
