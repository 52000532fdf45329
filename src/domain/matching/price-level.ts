import type { AccountId, OrderId, Side, StpMode, TimeInForce } from './types.ts';

/**
 * One order on the book. Mutable on purpose: matching changes `remaining` and a modify
 * changes `price` in place, so the hot path allocates only the events it returns.
 * `prev`/`next`/`level` make it a member of its level's FIFO without a wrapper object.
 */
export class OrderNode {
  prev: OrderNode | null = null;
  next: OrderNode | null = null;
  /** Null when the order is not on a level (taken off, or never rested). */
  level: PriceLevel | null = null;
  prioritySeq = 0n;
  constructor(
    readonly id: OrderId,
    readonly accountId: AccountId,
    readonly side: Side,
    readonly isBuy: boolean,
    public price: bigint,
    public remaining: bigint,
    readonly tif: TimeInForce,
    readonly postOnly: boolean,
    readonly stpMode: StpMode,
    readonly expireAtNs: bigint | null,
  ) {}
}

/**
 * The orders at one price in time priority: an intrusive doubly-linked FIFO, so taking
 * any order off (cancel, modify) is O(1) given its node. `total` and `count` are kept
 * here so depth never walks the orders.
 */
export class PriceLevel {
  head: OrderNode | null = null;
  tail: OrderNode | null = null;
  count = 0;
  total = 0n;
  constructor(readonly price: bigint) {}

  /** Queues `node` behind every order already here. */
  push(node: OrderNode): void {
    node.level = this;
    node.next = null;
    node.prev = this.tail;
    if (this.tail === null) this.head = node;
    else this.tail.next = node;
    this.tail = node;
    this.count++;
    this.total += node.remaining;
  }

  /** Takes `node` out with its remaining quantity; true when the level is left empty. */
  remove(node: OrderNode): boolean {
    this.total -= node.remaining;
    if (node.prev === null) this.head = node.next;
    else node.prev.next = node.next;
    if (node.next === null) this.tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = null;
    node.next = null;
    node.level = null;
    return --this.count === 0;
  }

  /** Lowers a queued order's remaining quantity; it keeps its place in the queue. */
  reduce(node: OrderNode, qty: bigint): void {
    node.remaining -= qty;
    this.total -= qty;
  }
}
