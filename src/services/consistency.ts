import type { Db } from '../infra/database.ts';

/**
 * The references the projected append-only tables hold without foreign keys (dropped so
 * the projector's inserts pay for no key lookups: docs/scaling.md, "Projected write set").
 * Each is a column, the table it points into, and that table's key column.
 */
export const UNENFORCED_REFERENCES = [
  { table: 'Trade', column: 'symbolId', target: 'Market', key: 'symbolId' },
  { table: 'Trade', column: 'orderId', target: 'Order', key: 'id' },
  { table: 'Trade', column: 'accountId', target: 'Account', key: 'id' },
  { table: 'Trade', column: 'transferId', target: 'LedgerTransfer', key: 'id' },
  { table: 'LedgerTransferLeg', column: 'transferId', target: 'LedgerTransfer', key: 'id' },
  { table: 'LedgerTransferLeg', column: 'accountId', target: 'Account', key: 'id' },
  { table: 'LedgerTransferLeg', column: 'assetId', target: 'Asset', key: 'unifiedAssetId' },
  { table: 'LedgerTransferLeg', column: 'sourceAccountId', target: 'Account', key: 'id' },
  { table: 'LedgerTransferLeg', column: 'destinationAccountId', target: 'Account', key: 'id' },
] as const;

export interface DanglingReference {
  /** `Table.column -> Target.key`. */
  reference: string;
  count: number;
  /** Up to 10 ids of rows whose reference resolves to nothing. */
  rowIds: string[];
}

/**
 * Proves every unenforced reference resolves: an empty answer means the projected tables
 * are as consistent as the foreign keys would have kept them. A full scan per reference;
 * an operator's check, not a request path.
 */
export async function checkReferences(db: Db): Promise<DanglingReference[]> {
  const found: DanglingReference[] = [];
  for (const r of UNENFORCED_REFERENCES) {
    // Identifiers come from the constant above, never from input.
    const rows = await db.$queryRawUnsafe<{ id: bigint }[]>(
      `SELECT s."id" FROM "${r.table}" s
        WHERE s."${r.column}" IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM "${r.target}" t WHERE t."${r.key}" = s."${r.column}")
        ORDER BY s."id"`,
    );
    if (rows.length > 0) {
      found.push({ reference: `${r.table}.${r.column} -> ${r.target}.${r.key}`, count: rows.length, rowIds: rows.slice(0, 10).map((x) => x.id.toString()) });
    }
  }
  return found;
}
