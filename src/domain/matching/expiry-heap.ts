import type { OrderNode } from './price-level.ts';

interface HeapEntry {
  at: bigint;
  /** The order's prioritySeq when queued: a re-queued order leaves a stale entry behind. */
  seq: bigint;
  node: OrderNode;
}

/**
 * Binary min-heap of GTD expiries keyed (at, seq). Entries are never removed on cancel,
 * fill or re-queue (that would need a position index kept up to date on every swap);
 * stale ones are skipped when they surface, and dropped by `compact`.
 */
export class ExpiryHeap {
  private items: HeapEntry[] = [];

  get size(): number {
    return this.items.length;
  }

  /** Queues `node` to expire at `at` under its current prioritySeq. */
  push(node: OrderNode, at: bigint): void {
    const a = this.items;
    a.push({ at, seq: node.prioritySeq, node });
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      const t = a[i]!;
      a[i] = a[p]!;
      a[p] = t;
      i = p;
    }
  }

  /** Removes and returns the next live order due at or before `nowNs`, skipping stale entries. */
  popDue(nowNs: bigint): OrderNode | undefined {
    for (;;) {
      const top = this.items[0];
      if (top === undefined || top.at > nowNs) return undefined;
      this.pop();
      if (isLive(top)) return top.node;
    }
  }

  /** Drops stale entries, then re-heapifies. */
  compact(): void {
    this.items = this.items.filter(isLive);
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  private pop(): void {
    const a = this.items;
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      this.down(0);
    }
  }

  private down(i: number): void {
    const a = this.items;
    const n = a.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && less(a[l]!, a[m]!)) m = l;
      if (r < n && less(a[r]!, a[m]!)) m = r;
      if (m === i) return;
      const t = a[i]!;
      a[i] = a[m]!;
      a[m] = t;
      i = m;
    }
  }
}

function less(x: HeapEntry, y: HeapEntry): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
}

function isLive(e: HeapEntry): boolean {
  return e.node.level !== null && e.node.prioritySeq === e.seq;
}
