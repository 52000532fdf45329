import { errors } from './errorCatalogue.ts';
import { invalidArgument } from './errors.ts';
import { formatScaled, MAX_LEDGER_AMOUNT_E18 } from './money.ts';

/**
 * The signed body of a trading withdraw (spec 4.7, docs/api-decisions.md "Withdrawals").
 * Pure: the bytes a client signs, how they are read back, and the message a wallet signs.
 *
 * Canonical encoding: UTF-8 JSON of an object with its keys in ascending code-point order,
 * no whitespace, no optional field present when it has no value; `assetId` is a JSON
 * integer, every other value a JSON string. The server reads the bytes, encodes what it
 * read again, and refuses bytes that differ: two encodings of one withdrawal would be
 * two signatures of one meaning, and the idempotency key compares bytes.
 */
export type WithdrawAction = 'TO_FUNDING' | 'TO_EXTERNAL_CHAIN';

export interface WithdrawPayload {
  action: WithdrawAction;
  /** Integer count of 1e-18 units of the unified asset. */
  amount: string;
  assetId: number;
  deadlineTsSec: string;
  destinationAddress?: string;
  destinationChainId?: string;
  idempotencyKey: string;
  nonce: string;
}

export const MAX_PAYLOAD_BYTES = 2048;
/** How far ahead a signed authorization may reach: past it, a leaked signature stays usable too long. */
export const MAX_DEADLINE_AHEAD_SEC = 3600;
const U128_MAX = (1n << 128n) - 1n;
const KEYS = ['action', 'amount', 'assetId', 'deadlineTsSec', 'destinationAddress', 'destinationChainId', 'idempotencyKey', 'nonce'] as const;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,64}$/;

/** The canonical bytes of a payload (what the API key signs). */
export function encodePayload(p: WithdrawPayload): Uint8Array {
  const out: Record<string, string | number> = {};
  for (const k of KEYS) {
    const v = p[k];
    if (v !== undefined) out[k] = v;
  }
  return new TextEncoder().encode(JSON.stringify(out));
}

const field = (name: string) => `payload.${name}`;

function str(o: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const v = o[name];
  if (v === undefined) {
    if (required) throw invalidArgument(field(name), 'is required', 'required');
    return undefined;
  }
  if (typeof v !== 'string') throw invalidArgument(field(name), 'must be a JSON string', 'type');
  return v;
}

/**
 * Reads signed payload bytes: every rule on each field, then the canonical-form check.
 * Errors name the field as `payload.<name>`.
 */
export function decodePayload(bytes: Uint8Array): WithdrawPayload {
  if (bytes.length === 0) throw invalidArgument('payload', 'is empty', 'required');
  if (bytes.length > MAX_PAYLOAD_BYTES) throw invalidArgument('payload', `is longer than ${MAX_PAYLOAD_BYTES} bytes`, 'max-length');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw invalidArgument('payload', 'must be UTF-8 JSON (the canonical withdraw payload)', 'json');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidArgument('payload', 'must be a JSON object', 'type');
  const o = parsed as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown !== undefined) throw invalidArgument(field(unknown), 'is not a withdraw payload field', 'unknown-field');

  const action = str(o, 'action', true);
  if (action !== 'TO_FUNDING' && action !== 'TO_EXTERNAL_CHAIN') throw invalidArgument(field('action'), 'must be TO_FUNDING or TO_EXTERNAL_CHAIN', 'enum');
  const amount = str(o, 'amount', true) as string;
  if (/^[0-9]*\.[0-9]*$/.test(amount)) {
    throw invalidArgument(field('amount'), `is an integer count of 1e-18 units, without a decimal point (1.5 units is "1500000000000000000"); got "${amount}"`, 'e18-integer', errors.AMOUNT_ENCODING);
  }
  if (!/^[1-9][0-9]{0,77}$/.test(amount)) throw invalidArgument(field('amount'), 'must be a positive integer count of 1e-18 units, without leading zeros', 'e18-integer', errors.AMOUNT_ENCODING);
  if (BigInt(amount) > MAX_LEDGER_AMOUNT_E18) throw invalidArgument(field('amount'), 'is larger than any balance can be', 'max');
  const assetId = o.assetId;
  if (typeof assetId !== 'number' || !Number.isInteger(assetId) || assetId <= 0 || assetId > 2 ** 31 - 1) throw invalidArgument(field('assetId'), 'must be a positive int32 JSON integer', 'int32');
  const deadlineTsSec = str(o, 'deadlineTsSec', true) as string;
  if (!/^[1-9][0-9]{0,11}$/.test(deadlineTsSec)) throw invalidArgument(field('deadlineTsSec'), 'must be Unix seconds as a decimal string', 'unix-seconds');
  const destinationAddress = str(o, 'destinationAddress', false);
  if (destinationAddress !== undefined && (destinationAddress.length === 0 || destinationAddress.length > 128)) throw invalidArgument(field('destinationAddress'), 'must be 1 to 128 characters', 'length');
  const destinationChainId = str(o, 'destinationChainId', false);
  if (destinationChainId !== undefined && !/^[1-9][0-9]{0,9}$/.test(destinationChainId)) throw invalidArgument(field('destinationChainId'), 'must be a registered network id as a decimal string', 'chain-id');
  const idempotencyKey = str(o, 'idempotencyKey', true) as string;
  if (!IDEMPOTENCY_KEY.test(idempotencyKey)) throw invalidArgument(field('idempotencyKey'), 'must be 1 to 64 characters of A-Z a-z 0-9 . _ : -', 'idempotency-key');
  const nonce = str(o, 'nonce', true) as string;
  if (!/^(0|[1-9][0-9]{0,38})$/.test(nonce) || BigInt(nonce) > U128_MAX) throw invalidArgument(field('nonce'), 'must be an unsigned 128-bit integer as a decimal string, without leading zeros', 'uint128');

  if (action === 'TO_EXTERNAL_CHAIN') {
    if (destinationChainId === undefined) throw invalidArgument(field('destinationChainId'), 'is required for TO_EXTERNAL_CHAIN', 'required');
    if (destinationAddress === undefined) throw invalidArgument(field('destinationAddress'), 'is required for TO_EXTERNAL_CHAIN', 'required');
  } else if (destinationChainId !== undefined) {
    throw invalidArgument(field('destinationChainId'), 'must be omitted for TO_FUNDING', 'forbidden');
  }

  const payload: WithdrawPayload = {
    action,
    amount,
    assetId,
    deadlineTsSec,
    ...(destinationAddress !== undefined ? { destinationAddress } : {}),
    ...(destinationChainId !== undefined ? { destinationChainId } : {}),
    idempotencyKey,
    nonce,
  };
  if (!sameBytes(encodePayload(payload), bytes)) {
    throw invalidArgument('payload', 'is not in canonical form: keys in ascending order, no whitespace, assetId an integer, every other value a string', 'canonical', errors.PAYLOAD_NOT_CANONICAL);
  }
  return payload;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The signed deadline: not passed, and not further ahead than MAX_DEADLINE_AHEAD_SEC. */
export function checkDeadline(deadlineTsSec: string, nowMs: number): void {
  const deadline = Number(deadlineTsSec);
  const now = Math.floor(nowMs / 1000);
  if (deadline <= now) throw errors.DEADLINE_EXPIRED(`payload.deadlineTsSec: the authorization expired at ${deadline}; it is now ${now}`, { violations: [{ fieldPath: 'payload.deadlineTsSec', message: 'has passed', ruleId: 'deadline-passed' }] });
  if (deadline > now + MAX_DEADLINE_AHEAD_SEC) {
    throw errors.DEADLINE_TOO_FAR(`payload.deadlineTsSec: at most ${MAX_DEADLINE_AHEAD_SEC} s ahead (until ${now + MAX_DEADLINE_AHEAD_SEC})`, { violations: [{ fieldPath: 'payload.deadlineTsSec', message: `must be within ${MAX_DEADLINE_AHEAD_SEC} s`, ruleId: 'deadline-too-far' }] });
  }
}

/**
 * What a wallet signs with EIP-191 personal_sign for the `:wallet` variant: SIWE-like lines
 * a person can read in a wallet's prompt, derived from the payload alone (plus the display
 * names the server looks up), so the server rebuilds the same text to verify it. The
 * payload's SHA-256 binds the message to the exact bytes.
 */
export function authorizationMessage(input: {
  domain: string;
  accountId: string;
  payload: WithdrawPayload;
  assetSymbol: string;
  destinationLabel: string;
  payloadSha256Hex: string;
}): string {
  const p = input.payload;
  const amount = formatScaled(BigInt(p.amount), 18);
  return [
    `${input.domain} wants you to authorize a withdrawal from Trading.`,
    '',
    `Account: ${input.accountId}`,
    `Action: ${p.action}`,
    `Amount: ${amount} ${input.assetSymbol} (asset ${p.assetId})`,
    `Destination: ${input.destinationLabel}`,
    `Nonce: ${p.nonce}`,
    `Deadline: ${new Date(Number(p.deadlineTsSec) * 1000).toISOString()} (${p.deadlineTsSec})`,
    `Idempotency key: ${p.idempotencyKey}`,
    `Payload SHA-256: ${input.payloadSha256Hex}`,
  ].join('\n');
}
