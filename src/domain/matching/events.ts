import type { OrderNode } from './price-level.ts';
import type { CanceledEvent, CancelReason, DecrementedEvent, RestedEvent } from './types.ts';

// The events more than one command emits about an order, built from its node in one place
// so that every path reports the same fields.

export function canceled(node: OrderNode, reason: CancelReason, remaining: bigint, wasResting: boolean): CanceledEvent {
  return {
    type: 'canceled',
    orderId: node.id,
    accountId: node.accountId,
    side: node.side,
    price: node.price,
    reason,
    remaining,
    wasResting,
  };
}

/** A self-trade DECREMENT; `node.remaining` is already lowered by `qty`. */
export function decremented(node: OrderNode, qty: bigint, wasResting: boolean): DecrementedEvent {
  return {
    type: 'decremented',
    orderId: node.id,
    accountId: node.accountId,
    side: node.side,
    price: node.price,
    reason: 'STP',
    qty,
    remaining: node.remaining,
    wasResting,
  };
}

export function rested(node: OrderNode): RestedEvent {
  return {
    type: 'rested',
    orderId: node.id,
    accountId: node.accountId,
    side: node.side,
    price: node.price,
    qty: node.remaining,
    prioritySeq: node.prioritySeq,
  };
}
