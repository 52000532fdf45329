import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/infra/database.ts';

/** Applies pending migrations to the configured database (start-up does the same). */
const db = await openDatabase(loadConfig().database, { migrate: true });
await db.close();
console.log('migrations applied');
