/**
 * Keys by the time they expire, for the sweeps that run every 250 ms: finding what is due
 * costs the due keys (plus entries gone stale), not a scan of every open order or armed
 * switch. A min-heap on (time, insertion) with lazy deletion: moving or deleting a key
 * leaves its old entry behind, dropped when it reaches the top, and the heap is rebuilt
 * from the live keys whenever stale entries outnumber them, so a key cancelled long before
 * its expiry (a 30-day GTD order) does not stay in memory.
 */
export class ExpiryIndex<K> {
  private heap: { at: bigint; n: number; key: K }[] = [];
  private readonly current = new Map<K, bigint>();
  private added = 0;

  /** Entries held, stale ones included (the bound on its memory). */
  get size(): number {
    return this.heap.length;
  }

  add(key: K, at: bigint): void {
    if (this.current.get(key) === at) return;
    this.current.set(key, at);
    this.heap.push({ at, n: this.added++, key });
    this.up(this.heap.length - 1);
    this.compactIfStale();
  }

  /** The key's expiry, if indexed. */
  at(key: K): bigint | undefined {
    return this.current.get(key);
  }

  delete(key: K): void {
    if (this.current.delete(key)) this.compactIfStale();
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
      if (seen.has(top.key) || this.current.get(top.key) !== top.at) continue;
      seen.add(top.key);
      found.push(top);
    }
    for (const e of found) {
      this.heap.push(e);
      this.up(this.heap.length - 1);
    }
    return found.map((e) => e.key);
  }

  private compactIfStale(): void {
    if (this.heap.length <= 2 * this.current.size + 64) return;
    this.heap = this.heap.filter((e) => this.current.get(e.key) === e.at);
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.down(i);
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
    this.down(0);
  }

  private down(i: number): void {
    for (;;) {
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
