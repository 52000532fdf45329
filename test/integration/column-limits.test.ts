import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnSpecs } from '../../src/generated/columnLimits.ts';
import { columnMisfit, INDEXED_TEXT_MAX_BYTES, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, rowMisfit, type ColumnSpec } from '../../src/infra/columnLimits.ts';
import { writeSetMisfit } from '../../src/services/trading/storable.ts';
import { WriteSet, type TriggerRow } from '../../src/services/trading/writeSet.ts';
import { testDatabase } from '../helpers/infra.ts';

/**
 * The column limits come from schema.prisma's DMMF (scripts/column-limits.ts). These tests
 * hold them against the tables the migrations build: each limit is the column's, and a
 * value at the limit is stored while one past it is refused by PostgreSQL as by the check.
 */
let db: Awaited<ReturnType<typeof testDatabase>>;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const SQL_TYPE: Record<string, string> = { Int: 'integer', BigInt: 'bigint', Decimal: 'numeric', Float: 'double precision', Boolean: 'boolean', DateTime: 'timestamp with time zone', String: 'text', Json: 'jsonb', Bytes: 'bytea', Enum: 'USER-DEFINED' };

describe('column limits derived from the DMMF', () => {
  it('state every column of every table as PostgreSQL has it: type, list and numeric precision', async () => {
    const rows = await db.sql.query<{ table_name: string; column_name: string; data_type: string; udt_name: string; numeric_precision: number | null }>(
      `SELECT table_name, column_name, data_type, udt_name, numeric_precision FROM information_schema.columns WHERE table_schema = current_schema()`,
    );
    const byKey = new Map(rows.map((r) => [`${r.table_name}.${r.column_name}`, r]));
    let checked = 0;
    for (const [model, cols] of Object.entries(columnSpecs)) {
      for (const [column, spec] of Object.entries(cols)) {
        const row = byKey.get(`${model}.${column}`);
        expect(row, `${model}.${column}`).toBeDefined();
        if (!row) continue;
        if (spec.list) {
          expect(row.data_type, `${model}.${column}`).toBe('ARRAY');
        } else if (spec.nativeType?.[0] === 'Uuid') {
          expect(row.data_type).toBe('uuid');
        } else {
          expect(row.data_type, `${model}.${column}`).toBe(SQL_TYPE[spec.type]);
        }
        if (spec.type === 'Decimal' && spec.nativeType) expect(row.numeric_precision, `${model}.${column}`).toBe(Number(spec.nativeType[1][0]));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('mark as indexed every text column an index holds, and no index holds more than two text columns', async () => {
    const rows = await db.sql.query<{ index: string; table: string; column: string; type: string }>(
      `SELECT i.indexrelid::regclass::text AS index, c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (i.indkey)
        WHERE n.nspname = current_schema()`,
    );
    const textPerIndex = new Map<string, number>();
    for (const r of rows) {
      if (r.type !== 'text') continue;
      textPerIndex.set(r.index, (textPerIndex.get(r.index) ?? 0) + 1);
      expect(columnSpecs[r.table]?.[r.column]?.indexed, `${r.table}.${r.column} (${r.index})`).toBe(true);
    }
    expect(textPerIndex.size).toBeGreaterThan(10);
    for (const [index, n] of textPerIndex) expect(n, index).toBeLessThanOrEqual(2);
  });

  const spec = (model: string, column: string): ColumnSpec => columnSpecs[model]?.[column] as ColumnSpec;

  it('refuse exactly what an int, a bigint and a numeric(78, 0) column refuse', async () => {
    const int = spec('Order', 'symbolId');
    const big = spec('Trigger', 'triggerPrice');
    const dec = spec('Order', 'heldE18');
    expect([int.type, big.type, dec.nativeType]).toEqual(['Int', 'BigInt', ['Decimal', ['78', '0']]]);
    const fits = async (type: string, v: string) =>
      db.sql.query(`SELECT $1::${type}`, [v]).then(
        () => true,
        () => false,
      );
    const cases: [ColumnSpec, string, bigint][] = [
      [int, 'integer', BigInt(INT32_MAX)], [int, 'integer', BigInt(INT32_MAX) + 1n], [int, 'integer', BigInt(INT32_MIN)], [int, 'integer', BigInt(INT32_MIN) - 1n],
      [big, 'bigint', INT64_MAX], [big, 'bigint', INT64_MAX + 1n], [big, 'bigint', INT64_MIN], [big, 'bigint', INT64_MIN - 1n],
      [dec, 'numeric(78, 0)', 10n ** 78n - 1n], [dec, 'numeric(78, 0)', 10n ** 78n], [dec, 'numeric(78, 0)', -(10n ** 78n)],
    ];
    for (const [s, type, v] of cases) {
      const value = s.type === 'Int' ? Number(v) : v;
      expect(columnMisfit(s, value) === null, `${v} as ${type}`).toBe(await fits(type, v.toString()));
    }
    expect(columnMisfit(int, 2 ** 31)).not.toBeNull();
    expect(columnMisfit(big, 2n ** 63n)).not.toBeNull();
  });

  it('agree with PostgreSQL on random values around each bound', async () => {
    const big = spec('Trigger', 'triggerPrice');
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: INT64_MIN * 4n, max: INT64_MAX * 4n }), async (v) => {
        const stored = await db.sql.query(`SELECT $1::bigint`, [v.toString()]).then(() => true, () => false);
        expect(columnMisfit(big, v) === null).toBe(stored);
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.integer({ min: INT32_MIN, max: INT32_MAX }), (v) => columnMisfit(spec('Order', 'symbolId'), v) === null),
      { numRuns: 500 },
    );
  });

  it('refuse text an index cannot hold, U+0000 and lone surrogates, and take what PostgreSQL stores', async () => {
    const clientTriggerId = spec('Trigger', 'clientTriggerId');
    expect(clientTriggerId.indexed).toBe(true);
    expect(columnMisfit(clientTriggerId, 'x'.repeat(INDEXED_TEXT_MAX_BYTES))).toBeNull();
    expect(columnMisfit(clientTriggerId, 'x'.repeat(INDEXED_TEXT_MAX_BYTES + 1))).toMatch(/bytes/);
    expect(columnMisfit(clientTriggerId, 'é'.repeat(INDEXED_TEXT_MAX_BYTES / 2 + 1))).toMatch(/bytes/);
    expect(columnMisfit(clientTriggerId, 'a\u0000b')).toMatch(/U\+0000/);
    expect(columnMisfit(clientTriggerId, 'a\uD800b')).toMatch(/surrogate/);
    expect(columnMisfit(clientTriggerId, 'a\uD83D\uDE00b')).toBeNull();
    const memo = spec('LedgerTransfer', 'memo');
    expect(memo.indexed).toBe(false);
    expect(columnMisfit(memo, 'x'.repeat(100_000))).toBeNull();
    const state = spec('Trigger', 'state');
    expect(columnMisfit(state, JSON.stringify({ a: 'x\u0000' }))).toMatch(/U\+0000/);
    await expect(db.sql.query(`SELECT $1::jsonb`, [JSON.stringify({ a: 'x\u0000' })])).rejects.toThrow();
    await expect(db.sql.query(`SELECT $1::text`, ['a\u0000b'])).rejects.toThrow();
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 40 }), async (s) => {
        const stored = await db.sql.query<{ t: string }>(`SELECT $1::text AS t`, [s]).then((r) => r[0]?.t === s, () => false);
        expect(columnMisfit(memo, s) === null).toBe(stored);
      }),
      { numRuns: 300 },
    );
  });

  it('name every column the projection writes (no list of persist.ts outlives the schema)', () => {
    expect(writeSetMisfit(new WriteSet())).toBeNull();
    for (const [model, cols] of Object.entries(columnSpecs)) expect(rowMisfit(model, Object.keys(cols), {})).toBeNull();
    expect(() => rowMisfit('Trigger', ['noSuchColumn'], {})).toThrow(/no column/);
  });

  it('find the trailing threshold that does not fit bigint in a write set', () => {
    const ws = new WriteSet();
    const now = new Date();
    const trigger = {
      id: 1n, publicId: 't', accountId: 1n, parentOrderId: null, clientTriggerId: null, symbolId: 1, triggerType: 'TRAILING_STOP', status: 'ARMED', side: 'SELL',
      qty: 1n, feeAsset: 'QUOTE', stpMode: 'EXPIRE_MAKER', cancelReason: null, failureReason: null, triggerDirection: 'BELOW', triggerPrice: -9_999_970_000_000_000_000n,
      childKind: 'MARKET_IOC', childLimitPrice: null, childPostOnly: false, maxSlippageTicks: null, maxSlippageBps: 100, cumFilledQty: 0n, lastChildSeq: 0, firePx: null,
      version: 1, heldE18: 0n, acceptedAtTsNs: 1n, createdAt: now, updatedAt: now, armedAt: now, completedAt: null, terminalAt: null, params: '{}', state: '{}',
    } satisfies TriggerRow;
    ws.trigger(trigger);
    expect(writeSetMisfit(ws)).toMatchObject({ model: 'Trigger', column: 'triggerPrice' });
    ws.trigger({ ...trigger, triggerPrice: 1n });
    expect(writeSetMisfit(ws)).toBeNull();
  });
});
