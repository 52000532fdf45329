import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyFailure, entryFootprint, ParkedKeys, projectRange, reapplyPlan, type BatchPlan } from '../../src/services/trading/quarantine.ts';
import { WriteSet } from '../../src/services/trading/writeSet.ts';

/**
 * The projection's quarantine as pure logic (src/services/trading/quarantine.ts): a batch
 * with poisoned entries, bisected, must end exactly as applying the entries one by one
 * would (the reference), and no row may ever take an entry before an earlier one that
 * touches it.
 */

type Fault = 'none' | 'poison' | 'flaky';
interface Sim {
  seq: bigint;
  footprint: { keys: Set<string>; accounts: Set<bigint> };
  fault: Fault;
}

const KEYS = ['o:1', 'o:2', 'g:3', 'b:4:TRADING:1', 'c:5:x', 'd:6:0:BOTH', 'w:7', 'f:8'];

const entriesArb = fc
  .array(
    fc.record({
      keys: fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 0, maxLength: 3 }),
      fault: fc.constantFrom<Fault>('none', 'none', 'none', 'none', 'none', 'poison', 'flaky'),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((xs) => xs.map((x, i): Sim => ({ seq: BigInt(i + 1), footprint: { keys: new Set(x.keys), accounts: new Set() }, fault: x.fault })));

/** One by one, in order: what the quarantine must come to. */
function reference(entries: Sim[]) {
  const parked = new Map<string, bigint>();
  const applied: bigint[] = [];
  const failed: bigint[] = [];
  const behind = new Map<bigint, bigint>();
  for (const e of entries) {
    const owners = [...e.footprint.keys].map((k) => parked.get(k)).filter((s): s is bigint => s !== undefined);
    if (owners.length > 0) behind.set(e.seq, owners.reduce((a, b) => (a < b ? a : b)));
    else if (e.fault === 'poison') failed.push(e.seq);
    else {
      applied.push(e.seq);
      continue;
    }
    for (const k of e.footprint.keys) if (!parked.has(k)) parked.set(k, e.seq);
  }
  return { applied, failed, behind };
}

/** A database of one watermark: applies plans atomically, failing as the entries' faults say. */
function fakeDatabase(transientCalls: Set<number>) {
  const state = { watermark: 0n, applied: [] as bigint[], failed: [] as bigint[], behind: new Map<bigint, bigint>(), calls: 0, flakyTried: new Set<bigint>(), fixed: false };
  const run = async (plan: BatchPlan<Sim>) => {
    const call = state.calls++;
    const all = [...plan.apply, ...plan.behind.map((b) => b.entry), ...(plan.failed ? [plan.failed.entry] : [])].map((e) => e.seq).sort((a, b) => (a < b ? -1 : 1));
    // A plan covers consecutive entries, the first right after the watermark.
    all.forEach((s, i) => expect(s).toBe(state.watermark + 1n + BigInt(i)));
    if (transientCalls.has(call)) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
    if (!state.fixed) {
      if (plan.apply.some((e) => e.fault === 'poison')) throw Object.assign(new Error('bigint out of range'), { code: '22003' });
      const flaky = plan.apply.filter((e) => e.fault === 'flaky' && !state.flakyTried.has(e.seq));
      if (flaky.length > 0) {
        for (const e of flaky) state.flakyTried.add(e.seq);
        throw new Error('something odd');
      }
    }
    for (const e of plan.apply) state.applied.push(e.seq);
    for (const b of plan.behind) state.behind.set(b.entry.seq, b.behindSeq);
    if (plan.failed) state.failed.push(plan.failed.entry.seq);
    state.watermark = all.at(-1) ?? state.watermark;
  };
  return { state, run };
}

/** The drain loop: transient failures are retried from the watermark until everything is applied or parked. */
async function drain(entries: Sim[], parked: ParkedKeys, db: ReturnType<typeof fakeDatabase>) {
  for (let guard = 0; db.state.watermark < BigInt(entries.length); guard++) {
    expect(guard).toBeLessThan(1000);
    try {
      await projectRange(entries.slice(Number(db.state.watermark)), parked, db.run, { unknownAttempts: 3, pause: async () => undefined });
    } catch (err) {
      expect(classifyFailure(err)).toBe('transient');
    }
  }
}

/** No row takes an entry before an earlier entry that touches it. */
function expectRowOrder(entries: Sim[], appliedInOrder: bigint[]) {
  const position = new Map(appliedInOrder.map((s, i) => [s, i]));
  for (const a of entries) {
    for (const b of entries) {
      if (a.seq >= b.seq || ![...a.footprint.keys].some((k) => b.footprint.keys.has(k))) continue;
      const pb = position.get(b.seq);
      if (pb === undefined) continue;
      const pa = position.get(a.seq);
      expect(pa, `entry ${b.seq} applied before ${a.seq}, which touches the same row`).toBeDefined();
      expect(pa as number).toBeLessThan(pb);
    }
  }
}

describe('projection quarantine', () => {
  it('bisects batches to what one-by-one application parks, whatever the poisoned entries and transient failures', async () => {
    await fc.assert(
      fc.asyncProperty(entriesArb, fc.uniqueArray(fc.nat(60), { maxLength: 6 }), async (entries, transient) => {
        const db = fakeDatabase(new Set(transient));
        const parked = new ParkedKeys();
        await drain(entries, parked, db);
        const want = reference(entries);
        expect(db.state.applied).toEqual(want.applied);
        expect(db.state.failed.sort((a, b) => (a < b ? -1 : 1))).toEqual(want.failed);
        expect(new Map([...db.state.behind].sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(want.behind);
        expectRowOrder(entries, db.state.applied);
      }),
      { numRuns: 300 },
    );
  });

  it('re-applying the earliest parked entry, again and again after the fix, applies every entry in row order', async () => {
    await fc.assert(
      fc.asyncProperty(entriesArb, async (entries) => {
        const db = fakeDatabase(new Set());
        await drain(entries, new ParkedKeys(), db);
        db.state.fixed = true;
        const parkedSeqs = () => entries.filter((e) => !db.state.applied.includes(e.seq));
        for (let guard = 0; parkedSeqs().length > 0; guard++) {
          expect(guard).toBeLessThan(100);
          const remaining = parkedSeqs();
          const plan = reapplyPlan(remaining, (remaining[0] as Sim).seq) as Sim[];
          expect(plan[0]).toBe(remaining[0]);
          for (const e of plan) db.state.applied.push(e.seq);
        }
        expect([...db.state.applied].sort((a, b) => (a < b ? -1 : 1))).toEqual(entries.map((e) => e.seq));
        expectRowOrder(entries, db.state.applied);
      }),
      { numRuns: 300 },
    );
  });

  it('plans a re-apply of the entry and of exactly the later entries that wait on it and on nothing else parked', () => {
    fc.assert(
      fc.property(entriesArb, fc.nat(), (entries, pick) => {
        const target = entries[pick % entries.length] as Sim;
        const shares = (a: Sim, b: Sim) => [...a.footprint.keys].some((k) => b.footprint.keys.has(k));
        const plan = reapplyPlan(entries, target.seq);
        if (entries.some((e) => e.seq < target.seq && shares(e, target))) {
          expect(plan).toBeUndefined();
          return;
        }
        const chosen = plan as Sim[];
        expect(chosen[0]).toBe(target);
        const inPlan = new Set(chosen.map((e) => e.seq));
        for (const e of entries) {
          const earlierStaying = entries.some((s) => s.seq < e.seq && !inPlan.has(s.seq) && shares(s, e));
          const earlierGoing = chosen.some((g) => g.seq < e.seq && shares(g, e));
          if (e === target) continue;
          // In the plan: later, tied to the plan, and to nothing that stays parked before it.
          expect(inPlan.has(e.seq)).toBe(e.seq > target.seq && earlierGoing && !earlierStaying);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('classifies failures: data, integrity and limit classes are deterministic; connection, serialization, deadlock and cancel are transient', () => {
    for (const code of ['22003', '22021', '23505', '23514', '54000']) expect(classifyFailure({ code })).toBe('deterministic');
    for (const code of ['40001', '40P01', '57014', '08006', '57P01', 'ECONNRESET']) expect(classifyFailure({ code })).toBe('transient');
    expect(classifyFailure(new Error('Connection terminated unexpectedly'))).toBe('transient');
    expect(classifyFailure({ code: 'XX000' })).toBe('unknown');
    expect(classifyFailure(new Error('boom'))).toBe('unknown');
  });

  it('keys an entry by the rows it writes, leaving out the system accounts\' balances and the market counters', () => {
    const ws = new WriteSet();
    ws.balance(10n, 'TRADING', 1, 5n, 0n);
    ws.balance(99n, 'TRADING', 1, 1n, 0n);
    ws.sequences.set(1, { lastMatchId: 1n, lastPrioritySeq: 1n, lastBookSeq: 1n });
    ws.clientOrderIds.push({ accountId: 10n, clientOrderId: 'a\u0000b', orderId: 7n, createdAt: new Date(0), expiresAt: new Date(0) });
    const { keys, accounts } = entryFootprint(ws, new Set([99n]));
    expect([...keys].sort()).toEqual(['b:10:TRADING:1', 'c:10:a\uFFFDb']);
    expect([...accounts]).toEqual([10n]);
  });
});
