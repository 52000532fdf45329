import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboard, type SignedIn } from '../helpers/auth.ts';
import { wsClient } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

/**
 * No GraphQL document can cost the server more than its limits by its shape alone: it is
 * refused with a client error carrying `extensions.code` (never INTERNAL), and nothing is
 * logged at error level.
 */
let server: RunningApp;
let me: SignedIn;
beforeAll(async () => {
  server = await startTestApp();
  me = await onboard(server.url);
});
afterAll(async () => {
  await server?.close();
});

/** GraphQL over HTTP: refusals are 400 for this media type (200 with errors for plain JSON). */
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

async function post(query: string, variables?: unknown, accept = GRAPHQL_RESPONSE) {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...me.auth },
    body: JSON.stringify({ query, ...(variables !== undefined ? { variables } : {}) }),
  });
  return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } };
}

function expectRefused(r: Awaited<ReturnType<typeof post>>, code: string) {
  expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
  expect(r.body.errors?.length).toBeGreaterThan(0);
  for (const e of r.body.errors ?? []) {
    expect(e.extensions?.code, e.message).toBe(code);
    expect(e.extensions?.code).not.toBe('INTERNAL');
  }
}

const errorLines = () => server.logs.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);

describe('GraphQL documents beyond the limits', () => {
  it('a list literal nested 3,000 deep is refused by the token limit before the parser recurses', async () => {
    const deep = `${'['.repeat(3000)}1${']'.repeat(3000)}`;
    expectRefused(await post(`{ spotConfig(x: ${deep}) { __typename } }`), 'GRAPHQL_PARSE_FAILED');
  });

  it('inline fragments nested 3,000 deep are refused', async () => {
    const deep = `${'... on Query { '.repeat(3000)}__typename${' }'.repeat(3000)}`;
    expectRefused(await post(`{ ${deep} }`), 'GRAPHQL_PARSE_FAILED');
  });

  it('2,000 aliases of one field are refused without running any of them', async () => {
    const aliases = Array.from({ length: 2000 }, (_, i) => `a${i}: __typename`).join(' ');
    expectRefused(await post(`{ ${aliases} }`), 'GRAPHQL_PARSE_FAILED');
    const few = Array.from({ length: 40 }, (_, i) => `a${i}: spotConfig { __typename }`).join(' ');
    expectRefused(await post(`{ ${few} }`), 'GRAPHQL_VALIDATION_FAILED');
  });

  it('a selection deeper than the depth limit is refused; the standard introspection query is not', async () => {
    const deep = `{ viewer ${'{ f '.repeat(20)}${'}'.repeat(20)} }`;
    const r = await post(deep);
    expectRefused(r, 'GRAPHQL_VALIDATION_FAILED');
    expect(r.body.errors?.some((e) => /depth/i.test(e.message))).toBe(true);
    const introspection = await post(getIntrospectionQuery());
    expect(introspection.status).toBe(200);
    expect(introspection.body.errors).toBeUndefined();
  });

  it('many directives are refused', async () => {
    const directives = Array.from({ length: 60 }, () => '@include(if: true)').join(' ');
    expectRefused(await post(`{ __typename ${directives} }`), 'GRAPHQL_VALIDATION_FAILED');
  });

  it('a selection whose cost exceeds the limit is refused, saying so, with its cost and the limit', async () => {
    // A /v1-sized page of 1,000 orders with every field (28 each), and 1,000 fills: 32,005 against 30,000.
    const fields = 'avgPx clientOrderId closeReason createdAt cumQty expireAt feeAsset inheritedCumQty leavesQty lineage { id generation } orderId orderType origQty postOnly price sequence side status stpMode submittedMaxQuoteDebit symbol tif version';
    const r = await post(`{ viewer { openOrders(first: 1000) { edges { node { ${fields} } } } fills(first: 1000) { edges { node { matchId price } } } } }`);
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.message).toMatch(/^query cost \d+ exceeds the limit of 30000/);
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_COST_EXCEEDED', limit: 30_000, cost: expect.any(Number) });
  });

  it('the cost follows the page size the variables ask for', async () => {
    const query = `query($first: Int) { a: viewer { transfers(first: $first) { edges { node { account amount asset isDebit transferCode timestamp balanceAfter linkId flowId } } } } b: viewer { fills(first: $first) { edges { node { matchId price qty side symbol } } } } c: viewer { openOrders(first: $first) { edges { node { orderId price origQty leavesQty status version side symbol tif createdAt } } } } d: viewer { fills(first: $first) { edges { node { matchId qty } } } } }`;
    expect((await post(query, { first: 50 })).body.errors).toBeUndefined();
    expectRefused(await post(query, { first: 1000 }), 'QUERY_COST_EXCEEDED');
  });

  it('twenty aliases of one page are refused; one is not', async () => {
    const page = (alias: string) => `${alias}: viewer { transfers(first: 200) { edges { node { account amount asset isDebit linkId transferCode timestamp balanceAfter } } } }`;
    expect((await post(`{ ${page('a0')} }`)).body.errors).toBeUndefined();
    expectRefused(await post(`{ ${Array.from({ length: 20 }, (_, i) => page(`a${i}`)).join(' ')} }`), 'QUERY_COST_EXCEEDED');
  });

  it('a plain application/json client gets the same refusal with status 200, as GraphQL over HTTP says', async () => {
    const r = await post(`{ ${'['.repeat(3000)} }`, undefined, 'application/json');
    expect(r.status).toBe(200);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('none of these logged at error level', () => {
    expect(errorLines()).toEqual([]);
  });
});

/** The trading UI's own pages (issue 28): each is answered, well under the limit. */
describe('the UI\'s pages fit the cost limit', () => {
  const pages = {
    dashboard: `{
      viewer {
        balances { asset available held ledgerAccount }
        openOrders(first: 50) { edges { node { orderId clientOrderId symbol side orderType tif price origQty cumQty leavesQty avgPx status postOnly createdAt version lineage { id generation } } } pageInfo { hasNextPage endCursor } }
        fills(first: 50) { edges { node { matchId orderId symbol side price qty fee feeAsset feeIsRebate isMaker executedAt } } pageInfo { hasNextPage endCursor } }
      }
      triggers(limit: 50) { nextPageToken triggers { triggerId clientTriggerId symbol triggerType status qty feeAsset parentOrderId createdAt updatedAt version state { childOrders cumFilledQty firePx held } } }
    }`,
    triggers: `{ triggers(limit: 50) { nextPageToken triggers { triggerId symbol triggerType status qty parentOrderId createdAt state { childOrders cumFilledQty } events { eventType childOrderId childSeq firePx tsNs } childOrders { orderId side price origQty cumQty status } } } }`,
    trades: `{ viewer { fills(first: 50) { edges { node { matchId orderId symbol side price qty fee feeAsset referralShare executedAt lineage { id generation } } } transfers { matchId account asset isDebit transferCode txId timestamp } pageInfo { hasNextPage endCursor } } } }`,
    boards: `{ viewer { whiteboards(first: 50) { edges { node { board { boardId title ownerAccountId audience defaultRole createdAt updatedAt archivedAt accessVersion members { accountId role addedAt } } access { role permissions { canView canEdit canManage } } } } pageInfo { hasNextPage endCursor } } } }`,
    layouts: `{ viewer { layouts(first: 20) { edges { node { layoutId name isDefault panelViewState updatedAtMs widgets { widgetId widgetType widgetConfig } } } pageInfo { hasNextPage endCursor } } } }`,
    chart: `{ viewer { chartLayers(engineSymbolId: 1) { layerId name sortHint colorRgba useLayerColor isLocked isVisible revision updatedAtMs drawings { drawingId type version payload bboxTimeMinMs bboxTimeMaxMs bboxPriceMin bboxPriceMax updatedAtMs clientUpdatedAtMs } } } }`,
    flows: `{ chainFlows(limit: 50) { nextPageToken flows { flowId flowKind flowState currentStep currentStepSequence unifiedAssetId amountE18Hi amountE18Lo sourceTxHash startedAtUnixMs lastActivityAtUnixMs currentProgress { currentConfirmations requiredConfirmations } progressTimeline { sequence step status expectedDurationMs } requestFee { status amountE18Lo } } } }`,
  };
  it.each(Object.entries(pages))('%s', async (_, query) => {
    const r = await post(query);
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    expect(r.status).toBe(200);
  });

  it('a page of triggers with hundreds of events or child orders each is not: they cost the rows they can return', async () => {
    expectRefused(await post(`{ triggers(limit: 100) { triggers { triggerId events(first: 500) { eventType } } } }`), 'QUERY_COST_EXCEEDED');
    expectRefused(await post(`{ triggers(limit: 100) { triggers { triggerId childOrders(first: 500) { orderId } } } }`), 'QUERY_COST_EXCEEDED');
  });

  it('a market\'s layers, each with a thousand drawings, are not: a layer list costs as many layers as a market may have', async () => {
    const r = await post(`{ viewer { chartLayers(engineSymbolId: 1) { layerId drawings(first: 1000) { drawingId payload } } } }`);
    expectRefused(r, 'QUERY_COST_EXCEEDED');
  });
});

describe('malformed GET parameters', () => {
  it.each([
    ['variables', '%7B'],
    ['extensions', '%7B'],
    ['variables', '%5B1%5D'],
    ['extensions', '1'],
  ])('%s=%s is a 400 with a code, not INTERNAL', async (param, value) => {
    const res = await fetch(`${server.url}/graphql?query=%7B__typename%7D&${param}=${value}`, { headers: me.auth });
    const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    expect(errorLines()).toEqual([]);
  });
});

describe('the same limits over graphql-ws', () => {
  it.each([
    ['a 3,000-deep literal', `subscription { publicTrades(symbol: ${'['.repeat(3000)}) { symbol } }`, 'GRAPHQL_PARSE_FAILED'],
    ['40 aliases', `subscription { ${Array.from({ length: 40 }, (_, i) => `a${i}: publicTrades(symbol: "SOL-USDC") { symbol }`).join(' ')} }`, 'GRAPHQL_VALIDATION_FAILED'],
    ['a page that costs more than the limit', `{ a: viewer { transfers(first: 1000) { edges { node { account amount asset isDebit linkId transferCode timestamp balanceAfter } } } } b: viewer { fills(first: 1000) { edges { node { matchId price qty side symbol fee } } } } c: viewer { openOrders(first: 1000) { edges { node { orderId price origQty leavesQty side status symbol version tif createdAt cumQty avgPx } } } } }`, 'QUERY_COST_EXCEEDED'],
  ])('%s is refused with a coded error and the socket stays usable', async (_, query, code) => {
    const client = wsClient(server.url, { authorization: me.auth.authorization });
    try {
      const errors = await new Promise<readonly { extensions?: Record<string, unknown> }[]>((resolve, reject) => {
        client.subscribe({ query }, { next: () => reject(new Error('result')), error: (e) => resolve(Array.isArray(e) ? e : [e]), complete: () => reject(new Error('completed')) });
      });
      expect(errors[0]?.extensions?.code).toBe(code);
      const ok = await new Promise((resolve, reject) => {
        client.subscribe({ query: '{ __typename }' }, { next: resolve, error: reject, complete: () => undefined });
      });
      expect(ok).toEqual({ data: { __typename: 'Query' } });
    } finally {
      await client.dispose();
    }
    expect(errorLines()).toEqual([]);
  });
});
