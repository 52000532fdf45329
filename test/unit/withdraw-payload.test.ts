import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { authorizationMessage, checkDeadline, decodePayload, encodePayload, MAX_DEADLINE_AHEAD_SEC, type WithdrawPayload } from '../../src/domain/withdrawPayload.ts';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (s: string) => new TextEncoder().encode(s);
const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (err) {
    return err instanceof ApiError ? `${err.code}:${err.violations[0]?.fieldPath ?? ''}` : 'other';
  }
  return undefined;
};

/** The worked example of docs/api-decisions.md "Withdrawals". */
const EXAMPLE: WithdrawPayload = {
  action: 'TO_EXTERNAL_CHAIN',
  amount: '1500000000000000000',
  assetId: 4,
  deadlineTsSec: '1795000000',
  destinationAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  destinationChainId: '1',
  idempotencyKey: 'wd-2026-11-25-001',
  nonce: '340282366920938463463374607431768211455',
};
const EXAMPLE_BYTES =
  '{"action":"TO_EXTERNAL_CHAIN","amount":"1500000000000000000","assetId":4,"deadlineTsSec":"1795000000","destinationAddress":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","destinationChainId":"1","idempotencyKey":"wd-2026-11-25-001","nonce":"340282366920938463463374607431768211455"}';

const payloadArb: fc.Arbitrary<WithdrawPayload> = fc.oneof(
  fc.record({
    action: fc.constant('TO_EXTERNAL_CHAIN' as const),
    amount: fc.bigInt({ min: 1n, max: 10n ** 36n }).map(String),
    assetId: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    deadlineTsSec: fc.integer({ min: 1, max: 99_999_999_999 }).map(String),
    destinationAddress: fc.string({ minLength: 1, maxLength: 64 }),
    destinationChainId: fc.integer({ min: 1, max: 999_999_999 }).map(String),
    idempotencyKey: fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/),
    nonce: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map(String),
  }),
  fc.record(
    {
      action: fc.constant('TO_FUNDING' as const),
      amount: fc.bigInt({ min: 1n, max: 10n ** 36n }).map(String),
      assetId: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      deadlineTsSec: fc.integer({ min: 1, max: 99_999_999_999 }).map(String),
      destinationAddress: fc.string({ minLength: 1, maxLength: 64 }),
      idempotencyKey: fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/),
      nonce: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map(String),
    },
    { requiredKeys: ['action', 'amount', 'assetId', 'deadlineTsSec', 'idempotencyKey', 'nonce'] },
  ),
);

describe('the canonical withdraw payload', () => {
  it('encodes the worked example to the documented bytes, and reads them back', () => {
    expect(text(encodePayload(EXAMPLE))).toBe(EXAMPLE_BYTES);
    expect(decodePayload(bytes(EXAMPLE_BYTES))).toEqual(EXAMPLE);
    expect(createHash('sha256').update(EXAMPLE_BYTES).digest('hex')).toBe('66d522b839556507473751bdad9e6bc2efe1d348ec8edd3d11320ef47625da70');
  });

  it('round-trips every valid payload, and refuses any other encoding of it', () => {
    fc.assert(
      fc.property(payloadArb, fc.integer({ min: 1, max: 4 }), (p, indent) => {
        const canonical = encodePayload(p);
        expect(decodePayload(canonical)).toEqual(p);
        // Reordered keys, or whitespace: the same meaning in other bytes is refused.
        const reversed = bytes(JSON.stringify(Object.fromEntries(Object.entries(p).reverse())));
        expect(codeOf(() => decodePayload(reversed))).toBe('PAYLOAD_NOT_CANONICAL:payload');
        expect(codeOf(() => decodePayload(bytes(JSON.stringify(p, null, indent))))).toBe('PAYLOAD_NOT_CANONICAL:payload');
      }),
    );
  });

  it('names the field and the rule of each malformed value', () => {
    const with_ = (fields: Record<string, unknown>) => bytes(JSON.stringify({ ...EXAMPLE, ...fields }));
    expect(codeOf(() => decodePayload(with_({ amount: '1.5' })))).toBe('AMOUNT_ENCODING:payload.amount');
    expect(codeOf(() => decodePayload(with_({ amount: '0' })))).toBe('AMOUNT_ENCODING:payload.amount');
    expect(codeOf(() => decodePayload(with_({ amount: 15 })))).toBe('BAD_REQUEST:payload.amount');
    expect(codeOf(() => decodePayload(with_({ nonce: String(1n << 128n) })))).toBe('BAD_REQUEST:payload.nonce');
    expect(codeOf(() => decodePayload(with_({ nonce: '007' })))).toBe('BAD_REQUEST:payload.nonce');
    expect(codeOf(() => decodePayload(with_({ assetId: '4' })))).toBe('BAD_REQUEST:payload.assetId');
    expect(codeOf(() => decodePayload(with_({ action: 'TO_MOON' })))).toBe('BAD_REQUEST:payload.action');
    expect(codeOf(() => decodePayload(with_({ memo: 'x' })))).toBe('BAD_REQUEST:payload.memo');
    expect(codeOf(() => decodePayload(with_({ destinationChainId: undefined })))).toBe('BAD_REQUEST:payload.destinationChainId');
    expect(codeOf(() => decodePayload(with_({ action: 'TO_FUNDING' })))).toBe('BAD_REQUEST:payload.destinationChainId');
    expect(codeOf(() => decodePayload(bytes('[1]')))).toBe('BAD_REQUEST:payload');
    expect(codeOf(() => decodePayload(new Uint8Array([0xff, 0xfe])))).toBe('BAD_REQUEST:payload');
  });

  it('accepts a deadline in the future and at most an hour ahead', () => {
    const now = 1_795_000_000_000;
    expect(codeOf(() => checkDeadline('1795000000', now))).toBe('DEADLINE_EXPIRED:payload.deadlineTsSec');
    expect(codeOf(() => checkDeadline('1795000001', now))).toBeUndefined();
    expect(codeOf(() => checkDeadline(String(1_795_000_000 + MAX_DEADLINE_AHEAD_SEC), now))).toBeUndefined();
    expect(codeOf(() => checkDeadline(String(1_795_000_001 + MAX_DEADLINE_AHEAD_SEC), now))).toBe('DEADLINE_TOO_FAR:payload.deadlineTsSec');
  });

  it('derives the wallet authorization message of the worked example', () => {
    const message = authorizationMessage({
      domain: 'spot.example',
      accountId: '7Hx3kq2N9pWmZr',
      payload: EXAMPLE,
      assetSymbol: 'USDC',
      destinationLabel: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 on Ethereum (network 1)',
      payloadSha256Hex: '66d522b839556507473751bdad9e6bc2efe1d348ec8edd3d11320ef47625da70',
    });
    expect(message).toBe(
      [
        'spot.example wants you to authorize a withdrawal from Trading.',
        '',
        'Account: 7Hx3kq2N9pWmZr',
        'Action: TO_EXTERNAL_CHAIN',
        'Amount: 1.5 USDC (asset 4)',
        'Destination: 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 on Ethereum (network 1)',
        'Nonce: 340282366920938463463374607431768211455',
        'Deadline: 2026-11-18T11:06:40.000Z (1795000000)',
        'Idempotency key: wd-2026-11-25-001',
        'Payload SHA-256: 66d522b839556507473751bdad9e6bc2efe1d348ec8edd3d11320ef47625da70',
      ].join('\n'),
    );
  });
});
