/**
 * Keys by the time they expire, for the sweeps that run every 250 ms: finding what is due
 * costs the due keys (plus entries gone stale), not a scan of every open order or armed
 * switch. A min-heap on (time, insertion) with lazy deletion: the owner says through
 * `currentExpiry` when a key still expires at a time, so an entry whose key was deleted or
 * moved is dropped when it reaches the top, and changing a key costs one `add`.
 */
export class ExpiryIndex<K> {
  private readonly heap: { at: bigint; n: number; key: K }[] = [];
  private added = 0;

  constructor(private readonly currentExpiry: (key: K) => bigint | null | undefined) {}

  /** Entries held, stale ones included (the bound on its memory). */
  get size(): number {
    return this.heap.length;
  }

  add(key: K, at: bigint): void {
    this.heap.push({ at, n: this.added++, key });
    this.up(this.heap.length - 1);
  }

  /**
   * Keys that expire at or before `now`, earliest first. They stay indexed: they leave
   * once their owner deletes them or moves their expiry.
   */
  due(now: bigint): K[] {
    const found: { at: bigint; n: number; key: K }[] = [];
    const seen = new Set<K>();
    for (let top = this.heap[0]; top !== undefined && top.at <= now; top = this.heap[0]) {
      this.pop();
      if (seen.has(top.key) || this.currentExpiry(top.key) !== top.at) continue;
      seen.add(top.key);
      found.push(top);
    }
    for (const e of found) {
      this.heap.push(e);
      this.up(this.heap.length - 1);
    }
    return found.map((e) => e.key);
  }

  private less(a: number, b: number): boolean {
    const x = this.heap[a] as { at: bigint; n: number };
    const y = this.heap[b] as { at: bigint; n: number };
    return x.at < y.at || (x.at === y.at && x.n < y.n);
  }

  private swap(a: number, b: number): void {
    const t = this.heap[a] as { at: bigint; n: number; key: K };
    this.heap[a] = this.heap[b] as { at: bigint; n: number; key: K };
    this.heap[b] = t;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private pop(): void {
    const last = this.heap.pop();
    if (last === undefined || this.heap.length === 0) return;
    this.heap[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < this.heap.length && this.less(l, min)) min = l;
      if (r < this.heap.length && this.less(r, min)) min = r;
      if (min === i) return;
      this.swap(i, min);
      i = min;
    }
  }
}
