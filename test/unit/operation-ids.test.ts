import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAddressBookService } from '../../src/services/addressBook/index.ts';
import { createApiKeyService } from '../../src/services/apiKeys/index.ts';
import { createLayoutService } from '../../src/services/layouts/index.ts';
import { createLedgerService } from '../../src/services/ledger/index.ts';
import { createSubaccountService } from '../../src/services/accounts/index.ts';
import { createWhiteboardService } from '../../src/services/whiteboards/index.ts';

/**
 * Issue 27, "one name": every /v1 route of a service area in a folder reaches
 * `services[area][operationId]`, and the routes of those areas need no `as never`.
 */

const src = path.resolve(import.meta.dirname, '../../src');

/**
 * The converted areas' operation tables. Building one only closes over its context, so an
 * empty context is enough to read the keys. Chart is left out here: its service builds its
 * publications at construction (its routes are checked by service-shape.test.ts).
 */
const TABLES: Record<string, Record<string, unknown>> = {
  addressBook: createAddressBookService({} as never),
  apiKeys: createApiKeyService({} as never),
  layouts: createLayoutService({} as never),
  ledger: createLedgerService({} as never),
  subaccounts: createSubaccountService({} as never),
  whiteboards: createWhiteboardService({} as never),
};

/**
 * The route files of the converted areas (their handlers call only those areas). Not yet
 * converted, so not checked: chart (its service builds publications at construction;
 * service-shape.test.ts checks its files), trading, chain, markets, operator,
 * system, terms, wallet auth and rate limits.
 */
const CONVERTED_ROUTE_FILES: Record<string, string> = {
  'addressBook.ts': 'addressBook',
  'apiKeys.ts': 'apiKeys',
  'layouts.ts': 'layouts',
  'whiteboards.ts': 'whiteboards',
};

async function operationIds(file: string): Promise<string[]> {
  const text = await readFile(path.join(src, 'transport/rest/routes', file), 'utf8');
  return [...text.matchAll(/operationId: '(\w+)'/g)].map((m) => m[1] as string);
}

describe('operation ids', () => {
  it('every route of a converted area names a function of its service table', async () => {
    const missing: string[] = [];
    for (const [file, area] of Object.entries(CONVERTED_ROUTE_FILES)) {
      const ids = await operationIds(file);
      expect(ids.length, file).toBeGreaterThan(0);
      for (const id of ids) if (typeof TABLES[area]?.[id] !== 'function') missing.push(`${area}.${id}`);
    }
    expect(missing).toEqual([]);
  });

  it('a route that calls the ledger or subaccount service calls the function named by its operationId', async () => {
    const drift: string[] = [];
    for (const file of await readdir(path.join(src, 'transport/rest/routes'))) {
      const text = await readFile(path.join(src, 'transport/rest/routes', file), 'utf8');
      for (const block of text.split('defineRoute(').slice(1)) {
        const id = /operationId: '(\w+)'/.exec(block)?.[1];
        const call = /\bs\.(ledger|subaccounts)\.(\w+)\(/.exec(block.slice(block.indexOf('handler:')));
        if (!id || !call) continue;
        if (call[2] !== id || typeof TABLES[call[1] as string]?.[id] !== 'function') drift.push(`${file}: ${id} calls ${call[1]}.${call[2]}`);
      }
    }
    expect(drift).toEqual([]);
  });

  it('no route file of a converted area casts with `as never`', async () => {
    for (const file of Object.keys(CONVERTED_ROUTE_FILES)) {
      const text = await readFile(path.join(src, 'transport/rest/routes', file), 'utf8');
      expect(text.match(/as never/g) ?? [], file).toEqual([]);
    }
  });
});
