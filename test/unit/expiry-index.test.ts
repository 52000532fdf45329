import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpiryIndex } from '../../src/services/trading/expiries.ts';
import { OpenOrders } from '../../src/services/trading/openOrders.ts';
import type { OrderVersion } from '../../src/services/trading/writeSet.ts';

/**
 * The sweeps' index by expiry (src/services/trading/expiries.ts) against the scan it
 * replaces: every open order (or armed switch) looked at, those due picked out.
 */
const order = (id: bigint, expireAtTsNs: bigint | null): OrderVersion => ({ id, accountId: id % 3n, symbolId: 1, expireAtTsNs }) as OrderVersion;

const op = fc.oneof(
  fc.record({ k: fc.constant('set' as const), id: fc.integer({ min: 1, max: 30 }), at: fc.option(fc.integer({ min: 0, max: 50 })) }),
  fc.record({ k: fc.constant('delete' as const), id: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ k: fc.constant('sweep' as const), now: fc.integer({ min: 0, max: 60 }), expire: fc.boolean() }),
);

describe('expiry index', () => {
  it('finds exactly the open orders the full scan finds due, earliest first, through sets, deletes and sweeps', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const open = new OpenOrders();
        for (const o of ops) {
          if (o.k === 'set') open.set(BigInt(o.id), order(BigInt(o.id), o.at === null ? null : BigInt(o.at)));
          else if (o.k === 'delete') open.delete(BigInt(o.id));
          else {
            const now = BigInt(o.now);
            const scan = [...open.values()].filter((r) => r.expireAtTsNs !== null && r.expireAtTsNs <= now);
            const found = open.dueBy(now);
            expect(found.map((r) => r.id).sort()).toEqual(scan.map((r) => r.id).sort());
            const times = found.map((r) => r.expireAtTsNs as bigint);
            expect(times).toEqual([...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
            // The sweep expires what it found (or is refused and leaves it for the next one).
            if (o.expire) for (const r of found) open.delete(r.id);
          }
        }
      }),
      { numRuns: 300, seed: 23 },
    );
  });

  it('drops the entries of moved and deleted keys: memory follows the live keys, not the history', () => {
    const index = new ExpiryIndex<string>();
    for (let i = 1n; i <= 10_000n; i++) index.add('sw', 1000n + i);
    expect(index.size).toBeLessThanOrEqual(2 * 1 + 64);
    expect(index.due(10_999n)).toEqual([]);
    expect(index.due(11_000n)).toEqual(['sw']);
    // Thirty-day orders cancelled at once: none of them stays until its time comes.
    for (let i = 0; i < 10_000; i++) index.add(`o${i}`, 2_592_000n + BigInt(i));
    for (let i = 0; i < 10_000; i++) index.delete(`o${i}`);
    expect(index.size).toBeLessThanOrEqual(2 * 1 + 64);
    index.delete('sw');
    expect(index.due(10n ** 18n)).toEqual([]);
  });
});
