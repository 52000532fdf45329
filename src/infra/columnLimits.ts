import { columnSpecs } from '../generated/columnLimits.ts';
import { errors } from '../domain/errorCatalogue.ts';

/** One column as Prisma's DMMF states it (written by scripts/column-limits.ts). */
export interface ColumnSpec {
  /** The Prisma scalar type (Int, BigInt, Decimal, String, ...), or Enum. */
  type: string;
  list: boolean;
  /** `@db.Decimal(78, 0)` is ['Decimal', ['78', '0']]. */
  nativeType: [string, string[]] | null;
  /** Some index (primary key, unique or plain) holds the column. */
  indexed: boolean;
}

export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * A btree index entry holds at most 2704 bytes (PostgreSQL: a third of an 8 kB page, less
 * its headers). No index of the schema holds more than two text columns
 * (test/unit/column-limits.test.ts checks it), so 1024 bytes of UTF-8 per indexed text
 * column, with the other columns' 8 bytes each and the tuple headers, always fits.
 */
export const INDEXED_TEXT_MAX_BYTES = 1024;
/**
 * Largest magnitude of a Float (double precision) value. PostgreSQL holds every finite
 * double, but Prisma sends a Float as decimal text of 16 significant digits, which rounds
 * the largest doubles (above about 1.797693134862315e308) past the largest one, and
 * PostgreSQL refuses those as out of range: 1e308 leaves the rounding room.
 */
export const FLOAT_MAX_MAGNITUDE = 1e308;
/** Longest array a list column takes: far past any real use, far below PostgreSQL's 1 GB value. */
export const MAX_LIST_LENGTH = 10_000;

/** Why a value does not fit its column; null when it does. */
export type Misfit = string | null;

const utf8 = new TextEncoder();

// U+0000 is the one character PostgreSQL text and jsonb cannot hold; a lone surrogate is
// not Unicode and would be stored as U+FFFD, so not as sent.
// eslint-disable-next-line no-control-regex
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// eslint-disable-next-line no-control-regex
const SUSPECT_TEXT = /[\u0000\uD800-\uDFFF]/;
const UNSTORABLE_CHARACTER = 'holds U+0000 or a lone surrogate, which cannot be stored';

/** Why `text` cannot be stored in a text or jsonb column, or null. */
export function textMisfit(text: string): Misfit {
  // Most text holds neither U+0000 nor a surrogate: one cheap scan, the exact one only then.
  return SUSPECT_TEXT.test(text) && UNSTORABLE_TEXT.test(text) ? UNSTORABLE_CHARACTER : null;
}

/** The factory of a misfit's 400: `INVALID_CHARACTER` for a character text cannot hold (as for U+0000 anywhere, docs/api-decisions.md), else BAD_REQUEST. */
export const misfitFactory = (reason: string) => (reason === UNSTORABLE_CHARACTER ? errors.INVALID_CHARACTER : errors.BAD_REQUEST);

/** JSON text (escapes decoded) as jsonb takes it: valid, and no string in it holds what text cannot. */
function jsonMisfit(text: string): Misfit {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'must be valid JSON';
  }
  const walk = (v: unknown): Misfit => {
    if (typeof v === 'string') return textMisfit(v);
    if (Array.isArray(v)) {
      for (const item of v) {
        const bad = walk(item);
        if (bad) return bad;
      }
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const bad = textMisfit(k) ?? walk(item);
        if (bad) return bad;
      }
    }
    return null;
  };
  return walk(parsed);
}

type Check = (v: unknown) => Misfit;

/** The check of one scalar of `spec`, its bounds worked out once (it runs for every value of every job). */
function scalarCheck(spec: ColumnSpec): Check {
  switch (spec.type) {
    case 'Int': {
      const why = `must be a whole number from ${INT32_MIN} to ${INT32_MAX}`;
      return (v) => {
        const n = typeof v === 'bigint' ? Number(v) : v;
        return typeof n === 'number' && Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX ? null : why;
      };
    }
    case 'BigInt': {
      const why = `must be a whole number from ${INT64_MIN} to ${INT64_MAX}`;
      return (v) => {
        const b = typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : v;
        return typeof b === 'bigint' && b >= INT64_MIN && b <= INT64_MAX ? null : why;
      };
    }
    case 'Decimal': {
      const [precision, scale] = (spec.nativeType?.[1] ?? []).map(Number);
      // numeric without a precision holds up to 131072 digits before the point.
      const digits = precision === undefined ? 131_072 : precision - (scale ?? 0);
      const limit = 10n ** BigInt(digits);
      const why = `must have at most ${digits} digits`;
      return (v) => {
        const b = typeof v === 'string' && /^-?[0-9]+$/.test(v) ? BigInt(v) : v;
        if (typeof b !== 'bigint') return 'must be a whole number';
        return b < limit && b > -limit ? null : why;
      };
    }
    case 'Float': {
      const why = `must be a finite number from -${FLOAT_MAX_MAGNITUDE} to ${FLOAT_MAX_MAGNITUDE}`;
      return (v) => (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= FLOAT_MAX_MAGNITUDE ? null : why);
    }
    case 'Boolean':
      return (v) => (typeof v === 'boolean' ? null : 'must be true or false');
    case 'DateTime':
      return (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? null : 'must be a valid time');
    case 'String': {
      const native = spec.nativeType?.[0];
      const maxChars = native === 'VarChar' || native === 'Char' ? Number(spec.nativeType?.[1][0]) : undefined;
      const indexed = spec.indexed;
      return (v) => {
        if (typeof v !== 'string') return 'must be text';
        const bad = textMisfit(v);
        if (bad) return bad;
        if (maxChars !== undefined && [...v].length > maxChars) return `must be at most ${maxChars} characters`;
        // A UTF-16 code unit is at most 3 bytes of UTF-8: short text needs no encoding.
        if (indexed && v.length * 3 > INDEXED_TEXT_MAX_BYTES && utf8.encode(v).length > INDEXED_TEXT_MAX_BYTES) {
          return `must be at most ${INDEXED_TEXT_MAX_BYTES} bytes of UTF-8`;
        }
        return null;
      };
    }
    case 'Json':
      return (v) => (typeof v === 'string' ? jsonMisfit(v) : null);
    default:
      return () => null;
  }
}

const checks = new WeakMap<ColumnSpec, Check>();

/** The check of a column of `spec`, null values included (SQL NULL always fits here; NOT NULL is the table's to say). */
function columnCheck(spec: ColumnSpec): Check {
  let check = checks.get(spec);
  if (check) return check;
  const scalar = scalarCheck(spec);
  check = spec.list
    ? (value) => {
        if (value === null || value === undefined) return null;
        if (!Array.isArray(value)) return 'must be a list';
        if (value.length > MAX_LIST_LENGTH) return `must hold at most ${MAX_LIST_LENGTH} items`;
        for (const item of value) {
          const bad = scalar(item);
          if (bad) return `holds an item that ${bad.replace(/^must/, 'does not')}`;
        }
        return null;
      }
    : (value) => (value === null || value === undefined ? null : scalar(value));
  checks.set(spec, check);
  return check;
}

/** Why `value` does not fit the column `spec` describes, or null. */
export function columnMisfit(spec: ColumnSpec, value: unknown): Misfit {
  return columnCheck(spec)(value);
}

/** The columns of `model` as the schema states them; throws for a model the schema lacks (a bug). */
export function modelSpecs(model: string): Record<string, ColumnSpec> {
  const specs = columnSpecs[model];
  if (!specs) throw new Error(`schema.prisma has no model ${model}`);
  return specs;
}

/** A value that does not fit its column: which model and column, and why. */
export interface RowMisfit {
  model: string;
  column: string;
  reason: string;
}

/** The check of rows written to `columns` of `model`'s table: the first value that does not fit, or null. Throws for a column the schema lacks (a bug). */
export function rowChecker(model: string, columns: readonly string[]): (row: Record<string, unknown>) => RowMisfit | null {
  const specs = modelSpecs(model);
  const list = columns.map((column) => {
    const spec = specs[column];
    if (!spec) throw new Error(`schema.prisma has no column ${model}.${column}`);
    return [column, columnCheck(spec)] as const;
  });
  return (row) => {
    for (const [column, check] of list) {
      const reason = check(row[column]);
      if (reason) return { model, column, reason };
    }
    return null;
  };
}

/** The first of `columns` of `row` that does not fit `model`'s table, or null. */
export function rowMisfit(model: string, columns: readonly string[], row: Record<string, unknown>): RowMisfit | null {
  return rowChecker(model, columns)(row);
}
