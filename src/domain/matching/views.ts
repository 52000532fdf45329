import type { BookSide } from './book-side.ts';
import type { OrderNode } from './price-level.ts';
import type { RestingOrders } from './resting-orders.ts';
import type { Depth, DepthLevel, RestingOrder } from './types.ts';

// Copies out of the book: callers keep these across later commands, which mutate the nodes.

export function restingOrder(node: OrderNode): RestingOrder {
  const o: RestingOrder = {
    orderId: node.id,
    accountId: node.accountId,
    side: node.side,
    tif: node.tif === 'GTD' ? 'GTD' : 'GTC',
    price: node.price,
    qty: node.remaining,
    prioritySeq: node.prioritySeq,
    postOnly: node.postOnly,
    stpMode: node.stpMode,
  };
  if (node.expireAtNs !== null) o.expireAtNs = node.expireAtNs;
  return o;
}

/** Aggregated levels, best first, at most `levels` per side. */
export function depthOf(book: RestingOrders, levels: number): Depth {
  return { bids: sideDepth(book.bids, levels), asks: sideDepth(book.asks, levels) };
}

/** Every resting order per side in priority order (best price first, then prioritySeq). */
export function snapshotOf(book: RestingOrders): { bids: RestingOrder[]; asks: RestingOrder[] } {
  return { bids: sideOrders(book.bids), asks: sideOrders(book.asks) };
}

/** Every resting order sorted by prioritySeq: the order `restore` must be given them in. */
export function restingOrdersOf(book: RestingOrders): RestingOrder[] {
  const all = [...sideOrders(book.bids), ...sideOrders(book.asks)];
  return all.sort((a, b) => (a.prioritySeq < b.prioritySeq ? -1 : a.prioritySeq > b.prioritySeq ? 1 : 0));
}

function sideDepth(side: BookSide, n: number): DepthLevel[] {
  const out: DepthLevel[] = [];
  side.forEachBestFirst((l) => {
    if (out.length >= n) return false;
    out.push({ price: l.price, qty: l.total, orders: l.count });
    return true;
  });
  return out;
}

function sideOrders(side: BookSide): RestingOrder[] {
  const out: RestingOrder[] = [];
  side.forEachBestFirst((level) => {
    for (let n = level.head; n !== null; n = n.next) out.push(restingOrder(n));
    return true;
  });
  return out;
}
