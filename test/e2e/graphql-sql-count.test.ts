import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboard, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

/**
 * The projected read models are Pothos Prisma types (issue 28): a UI query for a page of N
 * items with nested relations costs a bounded number of SQL statements, whatever N. They
 * are counted where every one of them passes, the pg pool behind Prisma's driver adapter,
 * and only those run on behalf of the counted request (its async context), so the
 * background pollers of the running app do not count.
 */
const request = new AsyncLocalStorage<string[]>();
const poolQuery = pg.Pool.prototype.query;
beforeAll(() => {
  pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    request.getStore()?.push(typeof config === 'string' ? config : (config.text ?? ''));
    return (poolQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof poolQuery;
});
afterAll(() => {
  pg.Pool.prototype.query = poolQuery;
});

let server: RunningApp;
let me: SignedIn;
let other: SignedIn;
/** The statements of the request in flight that carries the `x-count-statements` header. */
let counted: string[] = [];
beforeAll(async () => {
  server = await startTestApp();
  [me, other] = await Promise.all([onboard(server.url), onboard(server.url)]);
  const http = server.app.http.server;
  const listeners = http.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  http.removeAllListeners('request');
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const run = () => listeners.forEach((l) => l.call(http, req, res));
    if (req.headers['x-count-statements']) request.run(counted, run);
    else run();
  });
});
afterAll(async () => {
  await server?.close();
});

const accountId = async (publicId: string) => (await server.database.prisma.account.findUniqueOrThrow({ where: { publicId } })).id;

/**
 * The statements one GraphQL request runs. It is sent once uncounted first: the rate limiter
 * re-reads an account's tier and overrides at most every 5 s (OVERRIDE_CACHE_MS), and such a
 * re-read landing in the counted request is not what its query costs.
 */
async function countStatements(query: string, as: SignedIn = me): Promise<{ count: number; data: any }> {
  const send = (headers: Record<string, string>) =>
    fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers, ...as.auth }, body: JSON.stringify({ query }) });
  await (await send({})).arrayBuffer();
  counted = [];
  const res = await send({ 'x-count-statements': '1' });
  const body = (await res.json()) as { data?: unknown; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return { count: counted.length, data: body.data };
}

/** Both accounts' rows are replaced by `n` of each kind, every one with three children. */
async function seed(n: number) {
  const db = server.database.prisma;
  const [mine, theirs] = await Promise.all([accountId(me.rootAccountId), accountId(other.rootAccountId)]);
  await db.layout.deleteMany({ where: { viewerAccountId: { in: [mine, theirs] } } });
  await db.whiteboard.deleteMany({ where: { ownerAccountId: { in: [mine, theirs] } } });
  await db.layoutTemplate.deleteMany({ where: { ownerAccountId: { in: [mine, theirs] } } });
  await db.chartLayer.deleteMany({ where: { ownerAccountId: { in: [mine, theirs] } } });
  await db.lifecycleFlow.deleteMany({ where: { rootAccountId: { in: [mine, theirs] } } });
  for (const owner of [mine, theirs]) {
    for (let i = 0; i < n; i++) {
      await db.layout.create({
        data: {
          viewerAccountId: owner,
          layoutId: BigInt(i + 1),
          name: `layout ${i}`,
          panelViewState: new Uint8Array([i % 256]),
          widgets: {
            create: ['a', 'b', 'c'].map((widgetId, position) => ({ widgetId, widgetType: 'CHART' as const, widgetConfig: new Uint8Array([position]), position })),
          },
        },
      });
      // Every layout published as a listed template with three versions (discovery lists both accounts').
      await db.layoutTemplate.create({
        data: {
          ownerAccountId: owner,
          templateId: `tpl${owner}x${i}`,
          sourceLayoutId: BigInt(i + 1),
          title: `template ${i}`,
          tags: ['sqlcount'],
          isListed: true,
          latestVersion: 3,
          versions: {
            create: [1, 2, 3].map((version) => ({
              version,
              title: `template ${i}`,
              layoutName: `layout ${i}`,
              panelViewState: new Uint8Array([version]),
              widgets: [{ widgetId: 'a', widgetType: 'CHART', widgetConfig: 'AA==' }],
            })),
          },
        },
      });
      // My boards are shared with the other account, theirs with me: each side lists its own and the shared ones.
      await db.whiteboard.create({
        data: {
          ownerAccountId: owner,
          title: `board ${i}`,
          aclEntries: { create: [{ principalAccountId: owner === mine ? theirs : mine, role: 'EDITOR' }] },
        },
      });
      // Both accounts use the same layer ids, so a drawing reached through the wrong owner's layer would show.
      const who = owner === mine ? 'mine' : 'theirs';
      await db.chartLayer.create({
        data: {
          ownerAccountId: owner,
          layerId: `layer${i}`,
          engineSymbolId: CHART_SYMBOL,
          name: `${who} ${i}`,
          sortHint: i,
          drawings: {
            create: [0, 1, 2, 3].map((k) => ({
              ownerAccountId: owner,
              drawingId: `${who}-${i}-${k}`,
              engineSymbolId: CHART_SYMBOL,
              type: 1,
              version: 1,
              payload: new Uint8Array([k]),
              clientUpdatedAtMs: BigInt(k + 1),
              updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, k)),
              // The fourth is a tombstone, which a layer's live drawings leave out.
              deletedAt: k === 3 ? new Date() : null,
            })),
          },
        },
      });
      const at = new Date(Date.UTC(2026, 0, 1, 0, i));
      await db.lifecycleFlow.create({
        data: {
          publicId: `flow${owner}x${i}`,
          ownerAccountId: owner,
          rootAccountId: owner,
          flowKind: 'DEPOSIT',
          flowState: 'SOURCE_CONFIRMING',
          currentStep: 'CONFIRMATIONS',
          currentStepSequence: 2,
          amountE18: '1000000000000000000',
          sourceDomain: 'EXTERNAL_CHAIN',
          destinationDomain: 'FUNDING',
          startedAt: at,
          updatedAt: at,
          lastActivityAt: at,
          currentProgress: { currentStepStartedAtUnixMs: at.getTime(), currentStepExpectedDurationMs: 60_000, currentConfirmations: i % 12, requiredConfirmations: 12, approveCount: 0, rejectCount: 0, validatorCount: 0, requiredApprovals: 0, requiredRejections: 0 },
          progressTimeline: [
            { sequence: 1, step: 'SOURCE', status: 'COMPLETED', expectedDurationMs: 0 },
            { sequence: 2, step: 'CONFIRMATIONS', status: 'IN_PROGRESS', expectedDurationMs: 60_000 },
            { sequence: 3, step: 'COMPLETE', status: 'PENDING', expectedDurationMs: 0 },
          ],
        },
      });
    }
  }
}

/**
 * Two new accounts, with `n` triggers each, every one protecting the account's one parent
 * order and with three child orders, each named by an event, and `n` fills each, every
 * one settled by two ledger legs. The rows are written as the projector writes them
 * (terminal, so the engine, which keeps live ones only, has none). Trigger events are
 * append-only, so each run has accounts of its own rather than replacing rows; the public
 * ids of a run's rows start with its `run` prefix.
 */
let runs = 0;
async function seedTrading(n: number): Promise<{ mine: SignedIn; theirs: SignedIn; run: string }> {
  const db = server.database.prisma;
  const [a, b] = await Promise.all([onboard(server.url), onboard(server.url)]);
  const [mine, theirs] = await Promise.all([accountId(a.rootAccountId), accountId(b.rootAccountId)]);
  const run = `r${++runs}`;
  const market = await db.market.findFirstOrThrow({ orderBy: { symbolId: 'asc' } });
  const order = (owner: bigint, publicId: string, extra: object = {}) => ({
    publicId,
    accountId: owner,
    symbolId: market.symbolId,
    side: 'BUY' as const,
    orderType: 'LIMIT' as const,
    tif: 'GTC' as const,
    status: 'FILLED' as const,
    isOpen: false,
    price: 1_000_000_000n,
    origQty: 1n,
    cumQty: 1n,
    leavesQty: 0n,
    acceptedAtTsNs: 1n,
    lineageId: publicId,
    prioritySeq: 0n,
    ...extra,
  });
  let match = 1_000_000_000_000n + BigInt(runs) * 1_000n;
  for (const [owner, who] of [[mine, `${run}mine`], [theirs, `${run}theirs`]] as const) {
    const parent = await db.order.create({ data: order(owner, `${who}Parent`) });
    for (let i = 0; i < n; i++) {
      const trigger = await db.trigger.create({
        data: {
          publicId: `${who}Trig${i}`,
          accountId: owner,
          symbolId: market.symbolId,
          triggerType: 'STOP_LOSS',
          status: 'COMPLETED',
          side: 'SELL',
          qty: 3n,
          parentOrderId: parent.id,
          triggerDirection: 'BELOW',
          triggerPrice: 900_000_000n,
          lastChildSeq: 3,
          acceptedAtTsNs: BigInt(i + 1),
          createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
        },
      });
      for (const seq of [1, 2, 3]) {
        const child = await db.order.create({
          data: order(owner, `${who}Child${i}x${seq}`, { side: 'SELL', originScope: 'TRIGGER', originTriggerId: trigger.id, originTriggerType: 'STOP_LOSS', childSeq: seq, parentOrderId: parent.id }),
        });
        await db.triggerEvent.create({
          data: { triggerId: trigger.id, eventType: 'CHILD_PLACED', triggerType: 'STOP_LOSS', accountId: owner, symbolId: market.symbolId, childOrderId: child.id, childSeq: seq, tsNs: BigInt(seq) },
        });
      }
      const transferId = match;
      match += 1n;
      await db.trade.create({
        data: {
          symbolId: market.symbolId,
          matchId: transferId,
          orderId: parent.id,
          accountId: owner,
          lineageId: parent.publicId,
          generation: 1,
          side: 'BUY',
          price: 1_000_000_000n,
          qty: 1n,
          isMaker: false,
          fee: '5',
          feeAsset: 'QUOTE',
          referralShare: '2',
          executedAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
          executedAtTsNs: BigInt(i + 1),
          transferId,
        },
      });
      await db.ledgerTransferLeg.createMany({
        data: [true, false].map((isDebit) => ({
          transferId,
          accountId: owner,
          ledgerAccount: 'TRADING' as const,
          assetId: market.quoteAssetId,
          amount: '1',
          isDebit,
          balanceAfter: '0',
          transferCode: 'TRADE' as const,
          timestampUs: BigInt(i + 1),
          symbolId: market.symbolId,
          matchId: transferId,
        })),
      });
    }
  }
  return { mine: a, theirs: b, run };
}

/** Chart layers carry no foreign key to a market: any symbol id will do. */
const CHART_SYMBOL = 7;

const layoutsQuery = `{ viewer { layouts(first: 100) { edges { node { viewerId layoutId name isDefault panelViewState updatedAtMs widgets { widgetId widgetType widgetConfig } } } pageInfo { hasNextPage endCursor } } } }`;
const templatesQuery = `{ viewer { layoutTemplates(first: 100, tag: "sqlcount") { edges { node { template { ownerId templateId } title latestVersion versions(first: 2) { version changelog layout { name widgets { widgetId widgetType widgetConfig } } } } } } } }`;
const chartQuery = `{ viewer { chartLayers(engineSymbolId: ${CHART_SYMBOL}) { ownerId layerId name revision updatedAtMs drawings { ownerId drawingId layer { ownerId layerId } payload deletedAtMs updatedAtMs } } } }`;
const flowsQuery = `{ chainFlows(limit: 100) { nextPageToken flows { flowId ownerAccountId flowState currentStep currentStepSequence amountE18Hi amountE18Lo startedAtUnixMs currentProgress { currentConfirmations requiredConfirmations } progressTimeline { sequence step status expectedDurationMs } requestFee { status } zipperReason { code } } } }`;
const triggersQuery = `{ triggers(limit: 100) { nextPageToken triggers { triggerId subaccountId symbol status parentOrderId stop { triggerPrice } state { childOrders } events { eventType childOrderId childSeq subaccountId } childOrders { orderId status origin { scope triggerId parentOrderId childSeq } } } } }`;
const fillsQuery = `{ viewer { fills(first: 100) { edges { node { matchId orderId lineage { id generation } symbol side price qty isMaker fee feeAsset feeIsRebate referralShare executedAt sequence } } transfers { matchId account isDebit transferCode } pageInfo { hasNextPage } } } }`;
const boardsQuery = `{ viewer { whiteboards(first: 100) { edges { node { board { boardId title ownerAccountId members { accountId role addedAt } } access { role } } } } } }`;

describe('nested UI queries issue a bounded number of SQL statements', () => {
  const counts: Record<string, number[]> = { layouts: [], boards: [], templates: [], chart: [], flows: [], triggers: [], fills: [] };

  it.each([1, 50])('with %i items of each kind', async (n) => {
    await seed(n);
    const layouts = await countStatements(layoutsQuery);
    const edges = layouts.data.viewer.layouts.edges as { node: { name: string; widgets: { widgetId: string }[] } }[];
    expect(edges).toHaveLength(n);
    expect(edges.every((e) => e.node.widgets.map((w) => w.widgetId).join() === 'a,b,c')).toBe(true);
    counts.layouts!.push(layouts.count);

    const boards = await countStatements(boardsQuery);
    const items = boards.data.viewer.whiteboards.edges as { node: { board: { boardId: string; ownerAccountId: string; members: { accountId: string; role: string }[] } } }[];
    // n boards of mine and n shared with me.
    expect(items).toHaveLength(2 * n);
    for (const { node } of items) {
      const memberIds = node.board.members.map((m) => m.accountId).sort();
      expect(memberIds).toEqual([me.rootAccountId, other.rootAccountId].sort());
      expect(node.board.members[0]).toMatchObject({ accountId: node.board.ownerAccountId, role: 'OWNER' });
    }
    counts.boards!.push(boards.count);
    // A single board (no page to read it with) answers the same members, read by its id.
    const first = items[0]!.node.board as { boardId?: string; members: unknown[] };
    const single = await countStatements(`{ viewer { whiteboard(boardId: "${first.boardId}") { board { members { accountId role addedAt } } } } }`);
    expect(single.data.viewer.whiteboard.board.members).toEqual(first.members);

    const templates = await countStatements(templatesQuery);
    const listed = templates.data.viewer.layoutTemplates.edges as { node: { template: { ownerId: string; templateId: string }; versions: { version: number; layout: { widgets: unknown[] } }[] } }[];
    // n templates of each account, each with its two newest versions of three.
    expect(listed).toHaveLength(2 * n);
    expect(new Set(listed.map((e) => e.node.template.ownerId))).toEqual(new Set([me.rootAccountId, other.rootAccountId]));
    for (const { node } of listed) {
      expect(node.versions.map((v) => v.version)).toEqual([3, 2]);
      expect(node.versions[0]!.layout.widgets).toHaveLength(1);
    }
    counts.templates!.push(templates.count);

    const chart = await countStatements(chartQuery);
    const layers = chart.data.viewer.chartLayers as { ownerId: string; layerId: string; name: string; drawings: { ownerId: string; drawingId: string; layer: { ownerId: string; layerId: string }; deletedAtMs: string }[] }[];
    // My layers only (the other account's share their ids), each with its three live drawings, oldest change first.
    expect(layers.map((l) => l.name)).toEqual(Array.from({ length: n }, (_, i) => `mine ${i}`));
    for (const [i, layer] of layers.entries()) {
      expect(layer.ownerId).toBe(me.rootAccountId);
      expect(layer.drawings.map((d) => d.drawingId)).toEqual([0, 1, 2].map((k) => `mine-${i}-${k}`));
      expect(layer.drawings.every((d) => d.ownerId === me.rootAccountId && d.deletedAtMs === '0' && d.layer.ownerId === me.rootAccountId && d.layer.layerId === layer.layerId)).toBe(true);
    }
    counts.chart!.push(chart.count);

    const flows = await countStatements(flowsQuery);
    const listedFlows = flows.data.chainFlows.flows as { flowId: string; ownerAccountId: string; amountE18Lo: string; progressTimeline: { step: string; status: string }[]; requestFee: unknown }[];
    expect(listedFlows).toHaveLength(n);
    for (const f of listedFlows) {
      expect(f.ownerAccountId).toBe(me.rootAccountId);
      expect(f.amountE18Lo).toBe('1000000000000000000');
      expect(f.progressTimeline.map((s) => `${s.step}:${s.status}`)).toEqual(['SOURCE:COMPLETED', 'CONFIRMATIONS:IN_PROGRESS', 'COMPLETE:PENDING']);
      expect(f.requestFee).toBeNull();
    }
    counts.flows!.push(flows.count);

    const trading = await seedTrading(n);
    const mine = `${trading.run}mine`;
    const triggers = await countStatements(triggersQuery, trading.mine);
    const page = triggers.data.triggers.triggers as { triggerId: string; subaccountId: string; parentOrderId: string; events: { childOrderId: string; childSeq: number; subaccountId: string }[]; childOrders: { orderId: string; origin: { triggerId: string; parentOrderId: string; childSeq: number } }[] }[];
    // My triggers only, newest first, each with its events (newest first) naming its own children.
    expect(page.map((tr) => tr.triggerId)).toEqual(Array.from({ length: n }, (_, i) => `${mine}Trig${n - 1 - i}`));
    for (const tr of page) {
      const i = tr.triggerId.slice(`${mine}Trig`.length);
      expect(tr).toMatchObject({ subaccountId: trading.mine.rootAccountId, parentOrderId: `${mine}Parent` });
      expect(tr.events.map((e) => [e.childSeq, e.childOrderId, e.subaccountId])).toEqual([3, 2, 1].map((k) => [k, `${mine}Child${i}x${k}`, trading.mine.rootAccountId]));
      expect(tr.childOrders).toEqual([1, 2, 3].map((k) => ({ orderId: `${mine}Child${i}x${k}`, status: 'FILLED', origin: { scope: 'TRIGGER', triggerId: tr.triggerId, parentOrderId: `${mine}Parent`, childSeq: k } })));
    }
    counts.triggers!.push(triggers.count);

    const fills = await countStatements(fillsQuery, trading.mine);
    const fillPage = fills.data.viewer.fills as { edges: { node: { matchId: string; orderId: string; fee: string; referralShare: string; sequence: string | null } }[]; transfers: { matchId: string; isDebit: boolean }[] };
    // My fills only, each with its two settlement legs.
    expect(fillPage.edges).toHaveLength(n);
    for (const { node } of fillPage.edges) {
      expect(node).toMatchObject({ orderId: `${mine}Parent`, fee: '0.000000000000000005', referralShare: '0.000000000000000002', sequence: null });
      expect(fillPage.transfers.filter((l) => l.matchId === node.matchId).map((l) => l.isDebit).sort()).toEqual([false, true]);
    }
    expect(fillPage.transfers).toHaveLength(2 * n);
    counts.fills!.push(fills.count);

    // What every request costs before its query runs (authentication: the session, its account).
    const fixed = (await countStatements('{ viewer { __typename } }')).count;
    expect(fixed).toBeGreaterThan(0);
    for (const c of [layouts.count, boards.count, templates.count, chart.count, flows.count, triggers.count, fills.count]) expect(c - fixed).toBeLessThanOrEqual(4);
  });

  it('the count does not depend on the page size', () => {
    console.info(`SQL statements for N=1 and N=50: ${JSON.stringify(counts)}`);
    expect(counts.layouts![0]).toBe(counts.layouts![1]);
    expect(counts.boards![0]).toBe(counts.boards![1]);
    expect(counts.templates![0]).toBe(counts.templates![1]);
    expect(counts.chart![0]).toBe(counts.chart![1]);
    expect(counts.flows![0]).toBe(counts.flows![1]);
    expect(counts.triggers![0]).toBe(counts.triggers![1]);
    expect(counts.fills![0]).toBe(counts.fills![1]);
  });
});

describe('nested reads stay within the caller\'s own rows', () => {
  let trading: Awaited<ReturnType<typeof seedTrading>>;
  beforeAll(async () => {
    await seed(2);
    trading = await seedTrading(2);
  });

  const post = async (query: string, as: SignedIn) => {
    const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...as.auth }, body: JSON.stringify({ query }) });
    return (await res.json()) as { data?: any; errors?: { extensions?: { code?: string; key?: string; status?: number; violations?: { fieldPath?: string }[] } }[] };
  };

  it('a nested first outside 1..its bound is refused as invalid-argument, never read as another number', async () => {
    const { run } = trading;
    const asked = [
      [`{ viewer { chartLayer(layerId: "layer1") { drawings(first: FIRST) { drawingId } } } }`, me, 1_000],
      [`{ trigger(triggerId: "${run}mineTrig0") { events(first: FIRST) { childOrderId } } }`, trading.mine, 500],
      [`{ trigger(triggerId: "${run}mineTrig0") { childOrders(first: FIRST) { orderId } } }`, trading.mine, 500],
    ] as const;
    for (const [query, as, max] of asked) {
      for (const first of [0, -1, max + 1, 2_147_483_647]) {
        const r = await post(query.replace('FIRST', String(first)), as);
        expect(r.errors?.[0]?.extensions, `${query} first=${first}`).toMatchObject({ key: 'invalid-argument', status: 400 });
        expect(JSON.stringify(r.errors?.[0]?.extensions?.violations)).toContain('first');
      }
      const ok = await post(query.replace('FIRST', '1'), as);
      expect(ok.errors, query).toBeUndefined();
    }
  });

  it('a layer id both accounts use answers each its own layer and drawings', async () => {
    for (const [as, who] of [[me, 'mine'], [other, 'theirs']] as const) {
      const r = await post(`{ viewer { chartLayer(layerId: "layer1") { ownerId name drawings { drawingId } } } }`, as);
      expect(r.data.viewer.chartLayer).toEqual({ ownerId: as.rootAccountId, name: `${who} 1`, drawings: [0, 1, 2].map((k) => ({ drawingId: `${who}-1-${k}` })) });
    }
  });

  it('another account\'s drawing and flow are not found, and never listed', async () => {
    const drawing = await post(`{ viewer { chartDrawing(drawingId: "theirs-0-0") { drawingId } } }`, me);
    expect(drawing.errors?.[0]?.extensions?.code).toBe('CHART_DRAWING_NOT_FOUND');
    const theirs = await server.database.prisma.lifecycleFlow.findFirstOrThrow({ where: { rootAccountId: await accountId(other.rootAccountId) } });
    const flow = await post(`{ flow(id: "${theirs.publicId}") { flowId progressTimeline { step } } }`, me);
    expect(flow.errors?.[0]?.extensions?.code).toBe('FLOW_NOT_FOUND');
    expect(flow.data ?? null).toBeNull();
    const listed = await post(`{ chainFlows(ownerAccountId: "${other.rootAccountId}") { flows { flowId } } }`, me);
    expect(listed.data?.chainFlows ?? null).toBeNull();
    expect(listed.errors?.[0]?.extensions?.code).toBe('SUBACCOUNT_NOT_FOUND');
    const mine = await post(`{ chainFlows { flows { ownerAccountId } } }`, me);
    expect(mine.data.chainFlows.flows.map((f: { ownerAccountId: string }) => f.ownerAccountId)).toEqual([me.rootAccountId, me.rootAccountId]);
  });

  it('each account reads only its own triggers with their events and child orders, and its own fills; another\'s trigger is not found', async () => {
    for (const [as, who] of [[trading.mine, `${trading.run}mine`], [trading.theirs, `${trading.run}theirs`]] as const) {
      const r = await post(triggersQuery, as);
      const page = r.data.triggers.triggers as { triggerId: string; subaccountId: string; parentOrderId: string; events: { childOrderId: string; subaccountId: string }[]; childOrders: { orderId: string; origin: { triggerId: string } }[] }[];
      expect(page.map((tr) => tr.triggerId)).toEqual([`${who}Trig1`, `${who}Trig0`]);
      for (const tr of page) {
        expect(tr.subaccountId).toBe(as.rootAccountId);
        expect(tr.parentOrderId).toBe(`${who}Parent`);
        expect(tr.events.every((e) => e.childOrderId.startsWith(`${who}Child`) && e.subaccountId === as.rootAccountId)).toBe(true);
        expect(tr.childOrders.every((o) => o.orderId.startsWith(`${who}Child`) && o.origin.triggerId === tr.triggerId)).toBe(true);
      }
      const fills = await post(fillsQuery, as);
      expect(fills.data.viewer.fills.edges.map((e: { node: { orderId: string } }) => e.node.orderId)).toEqual([`${who}Parent`, `${who}Parent`]);
      expect(fills.data.viewer.fills.transfers).toHaveLength(4);
    }
    const { run } = trading;
    const theirs = await post(`{ trigger(triggerId: "${run}theirsTrig0") { triggerId events { childOrderId } childOrders { orderId } } }`, trading.mine);
    expect(theirs.errors?.[0]?.extensions?.code).toBe('TRIGGER_NOT_FOUND');
    expect(theirs.data ?? null).toBeNull();
    const events = await post(`{ triggerEvents(triggerId: "${run}theirsTrig0") { events { childOrderId } } }`, trading.mine);
    expect(events.errors?.[0]?.extensions?.code).toBe('TRIGGER_NOT_FOUND');
    // One's own trigger read alone answers the same relations as in the page; its newest event names a child past the first two asked for.
    const mine = await post(`{ trigger(triggerId: "${run}mineTrig0") { subaccountId parentOrderId events(first: 1) { childOrderId } childOrders(first: 2) { orderId } } }`, trading.mine);
    expect(mine.data.trigger).toEqual({ subaccountId: trading.mine.rootAccountId, parentOrderId: `${run}mineParent`, events: [{ childOrderId: `${run}mineChild0x3` }], childOrders: [1, 2].map((k) => ({ orderId: `${run}mineChild0x${k}` })) });
  });
});
