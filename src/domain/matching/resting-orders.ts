import { BookSide } from './book-side.ts';
import { ExpiryHeap } from './expiry-heap.ts';
import type { OrderNode } from './price-level.ts';
import type { OrderId } from './types.ts';

/**
 * Every order resting on one book, in the three structures that must agree: the price
 * levels of each side, the orderId index, and the GTD expiry heap. Membership (the index)
 * and position (a level) change separately because a modify that loses priority takes
 * the order off its level, may match it, and re-queues it without it ever leaving the
 * index: that saves a Map delete and set on the commonest command.
 */
export class RestingOrders {
  readonly bids = new BookSide(true);
  readonly asks = new BookSide(false);
  private readonly index = new Map<OrderId, OrderNode>();
  private readonly expiries = new ExpiryHeap();
  /** Resting GTD orders: the heap is compacted when its stale entries outnumber them. */
  private gtd = 0;

  get size(): number {
    return this.index.size;
  }

  get(orderId: OrderId): OrderNode | undefined {
    return this.index.get(orderId);
  }

  has(orderId: OrderId): boolean {
    return this.index.has(orderId);
  }

  /** Makes `node` findable by its id (it is not on a level until `enqueue`). */
  admit(node: OrderNode): void {
    this.index.set(node.id, node);
    if (node.expireAtNs !== null) this.gtd++;
  }

  /** Forgets an order that is no longer on a level. */
  forget(node: OrderNode): void {
    this.index.delete(node.id);
    if (node.expireAtNs !== null) this.gtd--;
  }

  /** Puts an admitted order at the back of its price level with priority `seq`. */
  enqueue(node: OrderNode, seq: bigint): void {
    node.prioritySeq = seq;
    (node.isBuy ? this.bids : this.asks).add(node);
    if (node.expireAtNs !== null) {
      const heap = this.expiries;
      heap.push(node, node.expireAtNs);
      if (heap.size > 2 * this.gtd + 64) heap.compact();
    }
  }

  /** Takes an order off its level but keeps it findable (a modify about to re-queue it). */
  lift(node: OrderNode): void {
    (node.isBuy ? this.bids : this.asks).remove(node);
  }

  /** Takes an order off the book entirely; its `remaining` is left as it was. */
  remove(node: OrderNode): void {
    this.lift(node);
    this.forget(node);
  }

  /** The next resting order due to expire at or before `nowNs`, still on the book. */
  nextDue(nowNs: bigint): OrderNode | undefined {
    return this.expiries.popDue(nowNs);
  }
}
