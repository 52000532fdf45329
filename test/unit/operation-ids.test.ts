import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSubaccountService } from '../../src/services/accounts/index.ts';
import { createAddressBookService } from '../../src/services/addressBook/index.ts';
import { createApiKeyService } from '../../src/services/apiKeys/index.ts';
import { chainOperations } from '../../src/services/chain/index.ts';
import { chartOperations } from '../../src/services/chart/index.ts';
import type { Services } from '../../src/services/index.ts';
import { createLayoutService } from '../../src/services/layouts/index.ts';
import { createLedgerService } from '../../src/services/ledger/index.ts';
import { createOperatorService } from '../../src/services/operator.ts';
import { createRateLimiter } from '../../src/services/rateLimits.ts';
import { createTermsService } from '../../src/services/terms.ts';
import { tradingOperations } from '../../src/services/trading/index.ts';
import { createWalletAuthService } from '../../src/services/walletAuth.ts';
import { createWhiteboardService } from '../../src/services/whiteboards/index.ts';
import { defineRoute, type RequestContext, type RouteSpec } from '../../src/transport/rest/route.ts';
import { addressBookRoutes } from '../../src/transport/rest/routes/addressBook.ts';
import { apiKeyRoutes } from '../../src/transport/rest/routes/apiKeys.ts';
import { authRoutes } from '../../src/transport/rest/routes/auth.ts';
import { chainRoutes } from '../../src/transport/rest/routes/chain.ts';
import { chartRoutes } from '../../src/transport/rest/routes/chart.ts';
import { layoutRoutes } from '../../src/transport/rest/routes/layouts.ts';
import { ledgerRoutes } from '../../src/transport/rest/routes/ledger.ts';
import { operatorRoutes } from '../../src/transport/rest/routes/operator.ts';
import { rateLimitRoutes } from '../../src/transport/rest/routes/rateLimits.ts';
import { tradingRoutes } from '../../src/transport/rest/routes/trading.ts';
import { triggerRoutes } from '../../src/transport/rest/routes/triggers.ts';
import { whiteboardRoutes } from '../../src/transport/rest/routes/whiteboards.ts';

/**
 * Issue 27, "one name": every /v1 and /operator/v1 route's handler calls
 * `services[area][operationId]`, a function of its area's operation table, and nothing in
 * transport/rest needs `as never`.
 */

const rest = path.resolve(import.meta.dirname, '../../src/transport/rest');

/**
 * Each area's operation table, keyed as the service table is. Building one only closes
 * over its context, so an empty context is enough to read the names (chart, chain and
 * trading build their streams and engine beside the table, in createServices).
 */
const TABLES: { [A in keyof Services]?: Record<string, unknown> } = {
  addressBook: createAddressBookService({} as never),
  apiKeys: createApiKeyService({} as never),
  chain: chainOperations({} as never),
  chart: chartOperations({} as never),
  layouts: createLayoutService({} as never),
  ledger: createLedgerService({} as never),
  limiter: createRateLimiter({} as never),
  operator: createOperatorService({} as never),
  orders: tradingOperations({} as never),
  subaccounts: createSubaccountService({} as never),
  terms: createTermsService({} as never),
  walletAuth: createWalletAuthService({} as never),
  whiteboards: createWhiteboardService({} as never),
};

/** Every route file and the routes it defines (operator.ts's table takes in the operator routes of ledger.ts). */
const ROUTE_FILES: Record<string, (s: Services) => RouteSpec[]> = {
  'addressBook.ts': addressBookRoutes,
  'apiKeys.ts': apiKeyRoutes,
  'auth.ts': authRoutes,
  'chain.ts': chainRoutes,
  'chart.ts': chartRoutes,
  'layouts.ts': layoutRoutes,
  'ledger.ts': ledgerRoutes,
  'operator.ts': operatorRoutes,
  'rateLimits.ts': rateLimitRoutes,
  'trading.ts': tradingRoutes,
  'triggers.ts': triggerRoutes,
  'whiteboards.ts': whiteboardRoutes,
};


/** Thrown by every service function of the recording table: the handler has made its call. */
const REACHED = new Error('reached the service');

/**
 * Stands for any parsed input, caller or request: every property read or call gives another
 * stand-in, and it converts to 0, so a handler gets as far as its service call.
 */
const anything: unknown = new Proxy(() => undefined, {
  get: (_target, key) => (key === Symbol.toPrimitive ? () => 0 : key === 'then' ? undefined : anything),
  apply: () => anything,
});

/** A service table whose every function records `area.name` and stops the handler there. */
function recordingServices() {
  const calls: string[] = [];
  const area = (name: string) =>
    new Proxy({}, {
      get: (_target, fn) => () => {
        calls.push(`${name}.${String(fn)}`);
        throw REACHED;
      },
    });
  const services = new Proxy({}, { get: (_target, name) => area(String(name)) }) as Services;
  return { services, calls };
}

/** What is wrong with each route's handler: it must call the function its operationId names, in a table. */
async function drift(build: (s: Services) => RouteSpec[]): Promise<string[]> {
  const { services, calls } = recordingServices();
  const found: string[] = [];
  for (const route of build(services)) {
    calls.length = 0;
    const input = { body: anything, query: anything, params: anything };
    const ctx = { requestId: 'r', ip: '127.0.0.1', caller: anything, request: anything } as RequestContext;
    const outcome = await route.handler(input, ctx).then(
      () => 'returned',
      (err: unknown) => (err === REACHED ? 'reached' : `threw ${String(err)}`),
    );
    const [call] = calls;
    const [area = '', fn = ''] = (call ?? '').split('.');
    if (outcome !== 'reached' || call === undefined) found.push(`${route.operationId}: ${outcome} before calling a service`);
    else if (fn !== route.operationId) found.push(`${route.operationId}: calls ${call}`);
    else if (typeof TABLES[area as keyof Services]?.[fn] !== 'function') found.push(`${route.operationId}: ${call} is not in an operation table`);
  }
  return found;
}

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : [path.join(dir, e.name)])));
  return nested.flat();
}

describe('operation ids', () => {
  it('every route file is checked', async () => {
    const files = (await readdir(path.join(rest, 'routes'))).sort();
    expect(Object.keys(ROUTE_FILES).sort()).toEqual(files);
  });

  it('every route calls services[area][operationId], a function of the area’s operation table', async () => {
    const found: string[] = [];
    for (const [file, build] of Object.entries(ROUTE_FILES)) {
      const own = await drift(build);
      found.push(...own.map((d) => `${file} ${d}`));
      expect(build(recordingServices().services).length, file).toBeGreaterThan(0);
    }
    expect(found).toEqual([]);
  });

  it('finds a route that calls another name, or a name no table has', async () => {
    const routes = (s: Services) => [
      defineRoute({ operationId: 'getOrderBook', method: 'GET', url: '/a', summary: '', auth: 'public', handler: async () => s.orders.getPublicTrades('X', 1) }),
      defineRoute({ operationId: 'fireDeadManSwitches', method: 'POST', url: '/b', summary: '', auth: 'public', handler: async () => s.orders.fireDeadManSwitches() }),
      defineRoute({ operationId: 'getOrder', method: 'GET', url: '/c', summary: '', auth: 'public', handler: async () => ({}) }),
    ];
    expect(await drift(routes)).toEqual([
      'getOrderBook: calls orders.getPublicTrades',
      'fireDeadManSwitches: orders.fireDeadManSwitches is not in an operation table',
      'getOrder: returned before calling a service',
    ]);
  });

  it('nothing in transport/rest casts with `as never`', async () => {
    const casts: string[] = [];
    for (const file of await sources(rest)) {
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (/\bas never\b/.test(line)) casts.push(`${path.relative(rest, file)}:${i + 1}`);
      });
    }
    expect(casts).toEqual([]);
  });
});
