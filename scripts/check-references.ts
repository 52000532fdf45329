import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/infra/database.ts';
import { checkReferences } from '../src/services/consistency.ts';

/**
 * `npm run db:check`: every reference of the projected tables that no foreign key holds
 * resolves (src/services/consistency.ts). Exits 1 and lists them when one does not.
 */
const db = await openDatabase(loadConfig().database, { migrate: false });
try {
  const dangling = await checkReferences(db.prisma);
  if (dangling.length === 0) console.log('every reference resolves');
  for (const d of dangling) console.log(`${d.reference}: ${d.count} dangling (rows ${d.rowIds.join(', ')})`);
  process.exitCode = dangling.length === 0 ? 0 : 1;
} finally {
  await db.close();
}
