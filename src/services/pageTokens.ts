import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { invalidArgument } from '../domain/errors.ts';

/**
 * Opaque keyset cursors. A token is the cursor encrypted with AES-256-GCM; the binding
 * (operation, caller and every filter of the request) is the additional authenticated
 * data, so a token cannot be read, forged, or replayed with another caller or other
 * filters: any of those fails authentication and is answered `invalid-argument`.
 */
export interface PageBinding {
  operation: string;
  /** Whoever may use the token: the authenticated account (or "public"). */
  caller: string;
  /** The request's filters and sort order, exactly as they select rows. */
  filters: Record<string, unknown>;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class PageTokens {
  private readonly key: Buffer;

  constructor(secret: string | Uint8Array) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'page-tokens', 'aes-256-gcm', 32));
  }

  encode(binding: PageBinding, cursor: Record<string, string | number | boolean | null>): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(bindingDigest(binding));
    const body = Buffer.concat([cipher.update(JSON.stringify(cursor), 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The cursor, or undefined for an absent/empty token. */
  decode<T extends Record<string, unknown>>(
    token: string | undefined,
    binding: PageBinding,
    fieldPath = 'pageToken',
  ): T | undefined {
    if (token === undefined || token === '') return undefined;
    const raw = Buffer.from(token, 'base64url');
    const bad = () =>
      invalidArgument(fieldPath, 'is not a page token issued for this request and these filters', 'page-token');
    if (raw.length < 1 + IV_BYTES + TAG_BYTES || raw[0] !== VERSION) throw bad();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(1, 1 + IV_BYTES));
      decipher.setAAD(bindingDigest(binding));
      decipher.setAuthTag(raw.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as T;
    } catch {
      throw bad();
    }
  }
}

function bindingDigest(binding: PageBinding): Buffer {
  return createHash('sha256').update(canonicalJson(binding)).digest();
}

/** JSON with sorted keys and bigints as strings, so equal filters always hash equal. */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * A list's page size: `limit` when given (1 to `max`), else `fallback`. Checked here, not
 * only in the REST schemas, so every transport gets the same 400.
 */
export function pageLimit(limit: number | undefined, max: number, fallback = 100): number {
  const value = limit ?? fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) throw invalidArgument('limit', `must be 1 to ${max}`, 'range');
  return value;
}

/**
 * One page of a keyset query: fetch `limit + 1` rows, keep `limit`, and make the next
 * token from the last kept row when there was one more.
 */
export function toPage<Row>(
  rows: Row[],
  limit: number,
  tokens: PageTokens,
  binding: PageBinding,
  cursorOf: (row: Row) => Record<string, string | number | boolean | null>,
): { items: Row[]; nextPageToken: string } {
  if (rows.length <= limit) return { items: rows, nextPageToken: '' };
  const items = rows.slice(0, limit);
  return { items, nextPageToken: tokens.encode(binding, cursorOf(items[items.length - 1] as Row)) };
}

/** Cursor of lists ordered newest created first (createdAt desc, id desc). */
export interface NewestFirstCursor {
  createdAt: string;
  id: string;
  [key: string]: string;
}

export function newestFirstCursor(row: { createdAt: Date; id: bigint }): NewestFirstCursor {
  return { createdAt: row.createdAt.toISOString(), id: row.id.toString() };
}

/**
 * Rows strictly after the cursor in (createdAt desc, id desc) order. Services set
 * createdAt from their clock (millisecond precision), so the cursor's time is exact.
 */
export function afterNewestFirst(cursor: NewestFirstCursor | undefined) {
  if (!cursor) return {};
  const createdAt = new Date(cursor.createdAt);
  return { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: BigInt(cursor.id) } }] };
}

export const NEWEST_FIRST = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];
