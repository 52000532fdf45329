/**
 * Signatures this process accepted while the shared replay guard (Redis) was away: reads
 * keep being served then, and a signature is still refused a second time by the process
 * that saw it, during the outage and after it (Redis never learnt of it). Kept only for
 * those requests, each for its replay window.
 */
export class LocalReplayGuard {
  private readonly seen = new Map<string, number>();
  private nextSweep = 0;

  /** True when `key` was not seen within its window; records it. */
  claim(key: string, ttlMs: number, now = Date.now()): boolean {
    this.sweep(now);
    const until = this.seen.get(key);
    if (until !== undefined && until > now) return false;
    this.seen.set(key, now + ttlMs);
    return true;
  }

  has(key: string, now = Date.now()): boolean {
    if (this.seen.size === 0) return false;
    const until = this.seen.get(key);
    return until !== undefined && until > now;
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + 1_000;
    for (const [k, until] of this.seen) if (until <= now) this.seen.delete(k);
  }
}
