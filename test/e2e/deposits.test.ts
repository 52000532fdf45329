import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainFlowByIdDocument, ChainFlowsDocument, FlowDocument, FlowUpdatesDocument, MyTransfersDocument } from '../generated/graphql/graphql.ts';
import { createSpotClient } from '../../client/index.ts';
import { api, onboard, type SignedIn } from '../helpers/auth.ts';
import { gql, wsClient } from '../helpers/graphql.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, ledgerViolations, SOUND_LEDGER } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
let server: RunningApp;
beforeAll(async () => {
  // A block every 50 ms: the sweep (every 250 ms) then runs one block per tick.
  server = await startTestApp({ env: { CHAIN_BLOCK_MS: '50' } });
});
afterAll(async () => {
  await server?.close();
});

type Flow = { flowId: string; flowState: string; currentStep: string; isOpen: boolean; isTerminal: boolean; lifecycleReason: string; currentProgress: { currentConfirmations: number; requiredConfirmations: number }; progressTimeline: { step: string; status: string; expectedDurationMs: string }[]; amountE18: { hi: string; lo: string }; assetIds: { unifiedAssetId: number; zippedAssetId: number } };

async function depositAddress(me: SignedIn, chainId: number): Promise<string> {
  const r = await api(server.url, 'POST', '/v1/chain/deposit-addresses', { chainId }, me.auth);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.depositAddress.depositAddress;
}

const observe = (body: Record<string, unknown>) => api(server.url, 'POST', '/operator/v1/chain/deposits', body, operator);
const flows = async (me: SignedIn, query = '') => (await api(server.url, 'GET', `/v1/chain/flows${query}`, undefined, me.auth)).body.flows as Flow[];

describe('a deposit from the simulated chain', () => {
  it('walks its steps as blocks confirm it, credits FUNDING once with its flowId, and is listed with its timeline', async () => {
    const me = await onboard(server.url);
    const address = await depositAddress(me, 1);
    const seen = await observe({ chainId: 1, address, asset: 'USDC', amount: '250', txHash: '0xabc1', logIndex: 3, fromAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' });
    expect(seen.status, JSON.stringify(seen.body)).toBe(200);
    const flowId = seen.body.flow.flowId as string;
    expect(seen.body.flow).toMatchObject({ flowKind: 'DEPOSIT', flowState: 'SOURCE_CONFIRMING', currentStep: 'CONFIRMATIONS', currentStepSequence: 2, isOpen: true, sourceDomain: 'EXTERNAL_CHAIN', destinationDomain: 'FUNDING', destinationAddress: address, sourceTxHash: '0xabc1', txOccurrenceIndex: '3', serviceChainId: 1, assetIds: { unifiedAssetId: 4, zippedAssetId: 102 }, amountE18: { hi: '13', lo: '10192327041775828992' } });
    expect(seen.body.flow.currentProgress).toMatchObject({ currentConfirmations: 0, requiredConfirmations: 12 });
    // Reported again: the same flow.
    expect((await observe({ chainId: 1, address, asset: 'USDC', amount: '250', txHash: '0xabc1', logIndex: 3 })).body.flow.flowId).toBe(flowId);

    const open = await flows(me, '?scope=OPEN');
    expect(open.map((f) => f.flowId)).toEqual([flowId]);
    await pollUntil(async () => (await flows(me, `?flowState=COMPLETED`)).length === 1, 15_000, 100);
    const [done] = await flows(me, '?scope=TERMINAL');
    expect(done).toMatchObject({ flowId, flowState: 'COMPLETED', currentStep: 'COMPLETE', isOpen: false, isTerminal: true, currentProgress: { currentConfirmations: 12, requiredConfirmations: 12 } });
    expect(done?.progressTimeline.map((s) => [s.step, s.status])).toEqual([['SOURCE', 'COMPLETED'], ['CONFIRMATIONS', 'COMPLETED'], ['SETTLEMENT', 'COMPLETED'], ['COMPLETE', 'COMPLETED']]);
    expect((await balancesOf(server.url, me))['FUNDING:USDC']).toEqual({ available: '250', held: '0' });

    const legs = (await api(server.url, 'GET', '/v1/transfers', undefined, me.auth)).body.transfers as { flowId: string; transferCode: string; amount: string; source: unknown }[];
    expect(legs).toEqual([expect.objectContaining({ flowId, transferCode: 'DEPOSIT', amount: '250', source: expect.objectContaining({ kind: 'EXTERNAL_ADDRESS', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chainId: 1 }) })]);
    // The UI's ledger shows the same leg with the flow's public id.
    const viewed = await gql(server.url, MyTransfersDocument, {}, me.auth);
    expect(viewed.body.errors).toBeUndefined();
    expect(viewed.body.data?.viewer?.transfers.edges.map((e) => [e.node.transferCode, e.node.flowId])).toEqual([['DEPOSIT', flowId]]);
    expect(await ledgerViolations((text) => server.database.sql.query(text))).toEqual(SOUND_LEDGER);

    // The next deposit on this chain expects what the last one took.
    const next = await observe({ chainId: 1, address, asset: 'USDC', amount: '5', txHash: '0xabc2' });
    const expected = (next.body.flow as Flow).progressTimeline.find((s) => s.step === 'CONFIRMATIONS')?.expectedDurationMs;
    expect(Number(expected)).toBeGreaterThan(0);
    expect(expected).not.toBe(String(12 * 50));
  });

  it('ends without a credit for an asset the chain does not carry for us, below the minimum, or dropped by the chain', async () => {
    const me = await onboard(server.url);
    const address = await depositAddress(me, 1);
    const unsupported = await observe({ chainId: 1, address, asset: 'SOL', amount: '10', txHash: '0xdef1' });
    expect(unsupported.body.flow).toMatchObject({ flowState: 'FAILED', lifecycleReason: 'UNSUPPORTED_ASSET', isTerminal: true, currentStep: 'SOURCE' });
    const small = await observe({ chainId: 1, address, asset: 'USDC', amount: '0.5', txHash: '0xdef2' });
    expect(small.body.flow).toMatchObject({ flowState: 'FAILED', lifecycleReason: 'AMOUNT_BELOW_MINIMUM' });
    const dropped = await observe({ chainId: 1, address, asset: 'USDC', amount: '10', txHash: '0xdef3' });
    const gone = await api(server.url, 'POST', '/operator/v1/chain/deposits/drop', { flowId: dropped.body.flow.flowId }, operator);
    expect(gone.body.flow).toMatchObject({ flowState: 'DROPPED', lifecycleReason: 'CHAIN_REORG', isTerminal: true });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await balancesOf(server.url, me)).toEqual({});
    expect((await api(server.url, 'POST', '/operator/v1/chain/deposits/drop', { flowId: dropped.body.flow.flowId }, operator)).status).toBe(409);
    const unknown = await observe({ chainId: 1, address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', asset: 'USDC', amount: '10', txHash: '0xdef4' });
    expect(unknown.status).toBe(404);
  });

  it('a drop racing the crediting block has exactly one outcome: dropped with nothing credited, or credited once and the drop refused', async () => {
    const me = await onboard(server.url);
    const address = await depositAddress(me, 1);
    const outcomes: { drop: number; state: string; credited: number }[] = [];
    // Drops sent from before to after the block that credits (12 confirmations, a block every 50 ms).
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const seen = await observe({ chainId: 1, address, asset: 'USDC', amount: '1', txHash: `0xrace${i}` });
        await new Promise((r) => setTimeout(r, 450 + i * 25));
        const drop = await api(server.url, 'POST', '/operator/v1/chain/deposits/drop', { flowId: seen.body.flow.flowId }, operator);
        expect([200, 409]).toContain(drop.status);
        await pollUntil(async () => (await api(server.url, 'GET', `/v1/chain/flows/${seen.body.flow.flowId}`, undefined, me.auth)).body.flow.isTerminal, 15_000, 50);
        const flow = (await api(server.url, 'GET', `/v1/chain/flows/${seen.body.flow.flowId}`, undefined, me.auth)).body.flow as Flow;
        const legs = (await api(server.url, 'GET', '/v1/transfers?limit=1000', undefined, me.auth)).body.transfers as { flowId: string }[];
        outcomes.push({ drop: drop.status, state: flow.flowState, credited: legs.filter((l) => l.flowId === flow.flowId).length });
      }),
    );
    for (const o of outcomes) expect([{ drop: 200, state: 'DROPPED', credited: 0 }, { drop: 409, state: 'COMPLETED', credited: 1 }]).toContainEqual(o);
    const credits = outcomes.filter((o) => o.state === 'COMPLETED').length;
    expect((await balancesOf(server.url, me))['FUNDING:USDC']?.available ?? '0').toBe(String(credits));
  });

  it('shows a caller only its own flows, with every filter bound to its cursor', async () => {
    const me = await onboard(server.url);
    const other = await onboard(server.url);
    const address = await depositAddress(me, 1);
    for (let i = 0; i < 3; i++) expect((await observe({ chainId: 1, address, asset: 'USDC', amount: '0.1', txHash: `0xfeed${i}` })).status).toBe(200);
    expect(await flows(other)).toEqual([]);
    const first = await api(server.url, 'GET', '/v1/chain/flows?limit=2&flowKind=DEPOSIT&serviceChainIds=1', undefined, me.auth);
    expect(first.body.flows).toHaveLength(2);
    const second = await api(server.url, 'GET', `/v1/chain/flows?limit=2&flowKind=DEPOSIT&serviceChainIds=1&pageToken=${encodeURIComponent(first.body.nextPageToken)}`, undefined, me.auth);
    expect(second.body.flows).toHaveLength(1);
    expect(new Set([...first.body.flows, ...second.body.flows].map((f: Flow) => f.flowId)).size).toBe(3);
    const otherFilter = await api(server.url, 'GET', `/v1/chain/flows?limit=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`, undefined, me.auth);
    expect(otherFilter.status).toBe(400);
    expect((await flows(me, '?txRef=0xfeed1')).length).toBe(1);
    expect(await flows(me, '?unifiedAssetIds=1')).toEqual([]);
    // The id lists filter over GraphQL too (they were refused there: a list of Int is not query-string text).
    const viaGraphql = async (filter: string) => {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...me.auth },
        body: JSON.stringify({ query: `{ chainFlows(${filter}) { flows { flowId } } }` }),
      });
      return (await res.json()) as { data?: { chainFlows: { flows: { flowId: string }[] } }; errors?: unknown[] };
    };
    const byChain = await viaGraphql('serviceChainIds: [1], flowKind: DEPOSIT');
    expect(byChain.errors, JSON.stringify(byChain.errors)).toBeUndefined();
    expect(byChain.data?.chainFlows.flows).toHaveLength(3);
    expect((await viaGraphql('unifiedAssetIds: [1]')).data?.chainFlows.flows).toEqual([]);
  });
});

describe('one flow by its id', () => {
  it('is answered over /v1, GraphQL and the typed client, with the spec\'s types; a stranger gets 404; List Flows filters by it', async () => {
    const me = await onboard(server.url);
    const stranger = await onboard(server.url);
    const address = await depositAddress(me, 1);
    // Below the minimum: it ends at once, so both transports read the same state.
    const seen = await observe({ chainId: 1, address, asset: 'USDC', amount: '0.5', txHash: '0xone1' });
    await observe({ chainId: 1, address, asset: 'USDC', amount: '0.6', txHash: '0xone2' });
    const flowId = seen.body.flow.flowId as string;

    const one = await api(server.url, 'GET', `/v1/chain/flows/${flowId}`, undefined, me.auth);
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.flow).toMatchObject({ flowId, flowKind: 'DEPOSIT', latestLifecycleSource: expect.any(String), lastActivityAtUnixMs: expect.stringMatching(/^[1-9][0-9]*$/) });
    // Spec 2.1: 64-bit integers, durations and times included, are decimal strings.
    expect(one.body.flow.currentProgress).toMatchObject({ currentStepStartedAtUnixMs: expect.stringMatching(/^[0-9]+$/), currentStepExpectedDurationMs: expect.stringMatching(/^[0-9]+$/), currentConfirmations: expect.any(Number) });
    for (const item of one.body.flow.progressTimeline) expect(item.expectedDurationMs).toMatch(/^[0-9]+$/);

    for (const who of [stranger, undefined]) {
      const hidden = await api(server.url, 'GET', `/v1/chain/flows/${flowId}`, undefined, who?.auth);
      expect(hidden.status).toBe(who ? 404 : 401);
      if (who) expect(hidden.body.code).toBe('FLOW_NOT_FOUND');
    }
    expect((await api(server.url, 'GET', `/v1/chain/flows/${'x'.repeat(65)}`, undefined, me.auth)).status).toBe(400);
    expect((await api(server.url, 'GET', '/v1/chain/flows/nope', undefined, me.auth)).status).toBe(404);

    const viaGql = await gql(server.url, FlowDocument, { id: flowId }, me.auth);
    expect(viaGql.body.errors).toBeUndefined();
    expect(viaGql.body.data?.flow).toMatchObject({ flowId, flowKind: 'DEPOSIT', ownerAccountId: one.body.flow.ownerAccountId, lastActivityAtUnixMs: one.body.flow.lastActivityAtUnixMs, latestLifecycleSource: one.body.flow.latestLifecycleSource, zipperReason: null });
    expect(viaGql.body.data?.flow.progressTimeline).toEqual(one.body.flow.progressTimeline.map((i: { sequence: number; step: string; expectedDurationMs: string }) => ({ sequence: i.sequence, step: i.step, expectedDurationMs: i.expectedDurationMs })));
    const hiddenGql = await gql(server.url, FlowDocument, { id: flowId }, stranger.auth);
    expect(hiddenGql.body.errors?.[0]?.extensions).toMatchObject({ code: 'FLOW_NOT_FOUND', status: 404 });
    // An id longer than any flow's is refused as over /v1, before any lookup (test/e2e/transport-bounds.test.ts).
    expect((await gql(server.url, FlowDocument, { id: 'y'.repeat(5000) }, me.auth)).body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400, violations: [expect.objectContaining({ fieldPath: 'flowId' })] });

    const client = createSpotClient({ baseUrl: server.url, sessionToken: me.token });
    const typed = await client.GET('/v1/chain/flows/{flowId}', { params: { path: { flowId } } });
    expect(typed.response.status).toBe(200);

    expect((await flows(me, `?flowId=${flowId}`)).map((f) => f.flowId)).toEqual([flowId]);
    expect(await flows(stranger, `?flowId=${flowId}`)).toEqual([]);
    const filtered = await gql(server.url, ChainFlowByIdDocument, { flowId }, me.auth);
    expect(filtered.body.data?.chainFlows.flows).toEqual([{ flowId }]);
  });
});

describe('flows over GraphQL', () => {
  it('a flowUpdates subscriber sees each step as it happens, confirmations rising to completion; chainFlows lists it', async () => {
    const me = await onboard(server.url);
    const address = await depositAddress(me, 1);
    const client = wsClient(server.url, { authorization: me.auth.authorization as string });
    const seen: { flowState: string; currentConfirmations: number }[] = [];
    try {
      const done = new Promise<void>((resolve, reject) => {
        client.subscribe<{ flowUpdates: { flowState: string; currentProgress: { currentConfirmations: number } } }>(
          { query: FlowUpdatesDocument.toString() },
          {
            next: (m) => {
              const f = m.data?.flowUpdates;
              if (!f) return;
              seen.push({ flowState: f.flowState, currentConfirmations: f.currentProgress.currentConfirmations });
              if (f.flowState === 'COMPLETED') resolve();
            },
            error: reject,
            complete: () => undefined,
          },
        );
      });
      await new Promise((r) => setTimeout(r, 300));
      expect((await observe({ chainId: 1, address, asset: 'USDC', amount: '3', txHash: '0xgq1' })).status).toBe(200);
      await done;
      expect(seen[0]).toEqual({ flowState: 'SOURCE_CONFIRMING', currentConfirmations: 0 });
      expect(seen.at(-1)).toEqual({ flowState: 'COMPLETED', currentConfirmations: 12 });
      const confirmations = seen.map((s) => s.currentConfirmations);
      expect([...confirmations].sort((a, b) => a - b)).toEqual(confirmations);
      expect(seen.length).toBeGreaterThanOrEqual(13);
    } finally {
      await client.dispose();
    }
    const listed = await gql(server.url, ChainFlowsDocument, { scope: 'TERMINAL' }, me.auth);
    expect(listed.body.data?.chainFlows.flows.map((f) => f.flowState)).toEqual(['COMPLETED']);
  });
});
