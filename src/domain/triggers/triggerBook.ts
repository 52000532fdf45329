import { crosses, type Direction } from './stop.ts';

export interface ArmedTrigger {
  id: bigint;
  direction: Direction;
  triggerPrice: bigint;
}

/**
 * The armed price triggers of one symbol, kept sorted by how soon a price move reaches
 * them, one list per direction: the triggers a price crosses are a prefix of its list,
 * found by binary search, so a trade costs O(log n + k) however many triggers rest away
 * from the price. Ties keep arrival order (the earlier trigger fires first).
 */
export class TriggerBook {
  /** ABOVE: ascending trigger price (the lowest is reached first by a rise). */
  private readonly above: ArmedTrigger[] = [];
  /** BELOW: descending trigger price (the highest is reached first by a fall). */
  private readonly below: ArmedTrigger[] = [];

  get size(): number {
    return this.above.length + this.below.length;
  }

  add(t: ArmedTrigger): void {
    const list = this.listOf(t.direction);
    // After every entry that a move reaches no later (stable among equal prices).
    list.splice(this.countReached(t.direction, t.triggerPrice), 0, t);
  }

  remove(t: ArmedTrigger): boolean {
    const list = this.listOf(t.direction);
    // Entries of the same price sit together, just before the first one the price does not reach.
    for (let i = this.countReached(t.direction, t.triggerPrice) - 1; i >= 0; i--) {
      const e = list[i] as ArmedTrigger;
      if (e.triggerPrice !== t.triggerPrice) break;
      if (e.id === t.id) {
        list.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  /** Every trigger `price` is at or through, removed, in firing order (ABOVE ones first). */
  takeCrossed(price: bigint): ArmedTrigger[] {
    const up = this.above.splice(0, this.countReached('ABOVE', price));
    const down = this.below.splice(0, this.countReached('BELOW', price));
    return [...up, ...down];
  }

  private listOf(direction: Direction): ArmedTrigger[] {
    return direction === 'ABOVE' ? this.above : this.below;
  }

  /** How many entries of `direction`'s list `price` crosses: they are its prefix. */
  private countReached(direction: Direction, price: bigint): number {
    const list = this.listOf(direction);
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (crosses(direction, (list[mid] as ArmedTrigger).triggerPrice, price)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
