import { canceled, decremented } from './events.ts';
import { maxQtyForBudget, quoteNotional, type NotionalScale } from './notional.ts';
import type { OrderNode, PriceLevel } from './price-level.ts';
import type { RestingOrders } from './resting-orders.ts';
import type { MatchEvent, Side } from './types.ts';

/** The taker is filled, or was canceled while matching. */
export const DONE = 0;
/** The opposite side ran out while the taker has quantity left. */
export const STOP_EMPTY = 1;
/** The best opposite price no longer crosses the taker's limit. */
const STOP_PRICE = 2;
type MatchStop = typeof DONE | typeof STOP_EMPTY | typeof STOP_PRICE;

/**
 * A taker against the makers of one book. Owns the matchId sequence because only fills
 * advance it, and a restarted book must continue it (`nextMatchId`).
 */
export class Matcher {
  private matchSeq: bigint;

  constructor(
    private readonly book: RestingOrders,
    private readonly qtyStep: bigint,
    private readonly scale: NotionalScale,
    nextMatchId: bigint,
  ) {
    this.matchSeq = nextMatchId;
  }

  get nextMatchId(): bigint {
    return this.matchSeq;
  }

  /**
   * Walks the opposite side in priority order while it crosses the taker's limit (any
   * price when not `limited`). Meets, per maker: expired GTD -> expire it; post-only taker
   * -> cancel the taker; same account -> STP by the taker's mode; else trade at the maker's
   * price, within what is left of the notional `cap`. The taker `t` is not on the book.
   */
  match(t: OrderNode, limited: boolean, cap: bigint | null, nowNs: bigint, out: MatchEvent[]): MatchStop {
    const book = this.book;
    const isBuy = t.isBuy;
    const opp = isBuy ? book.asks : book.bids;
    const limit = t.price;
    for (;;) {
      const level = opp.best();
      if (level === undefined) return STOP_EMPTY;
      const price = level.price;
      if (limited && (isBuy ? price > limit : price < limit)) return STOP_PRICE;
      const m = level.head!;
      if (m.expireAtNs !== null && m.expireAtNs <= nowNs) {
        book.remove(m);
        out.push(canceled(m, 'EXPIRED', m.remaining, true));
        continue;
      }
      if (t.postOnly) {
        out.push(canceled(t, 'POST_ONLY', t.remaining, false));
        return DONE;
      }
      if (m.accountId === t.accountId) {
        if (preventSelfTrade(book, t, m, level, out)) return DONE;
        continue;
      }
      let qty = t.remaining < m.remaining ? t.remaining : m.remaining;
      if (cap !== null) {
        const afford = maxQtyForBudget(price, cap, this.qtyStep, this.scale);
        if (afford < qty) {
          if (afford === 0n) {
            out.push(canceled(t, 'NOTIONAL_CAP', t.remaining, false));
            return DONE;
          }
          qty = afford;
        }
        cap -= quoteNotional(price, qty, this.scale);
      }
      const matchId = this.matchSeq++;
      const takerRemaining = t.remaining - qty;
      t.remaining = takerRemaining;
      if (m.remaining === qty) {
        // Off the book before its remaining is zeroed: the level's total drops by it.
        book.remove(m);
        m.remaining = 0n;
      } else {
        level.reduce(m, qty);
      }
      out.push({
        type: 'trade',
        matchId,
        price,
        qty,
        makerOrderId: m.id,
        takerOrderId: t.id,
        makerAccountId: m.accountId,
        takerAccountId: t.accountId,
        takerSide: t.side,
        makerRemaining: m.remaining,
        takerRemaining,
      });
      if (takerRemaining === 0n) return DONE;
    }
  }
}

/**
 * Taker `t` met maker `m` of the same account (the best order of `level`): applies the
 * taker's STP mode. True when that ends the taker.
 */
function preventSelfTrade(book: RestingOrders, t: OrderNode, m: OrderNode, level: PriceLevel, out: MatchEvent[]): boolean {
  switch (t.stpMode) {
    case 'EXPIRE_TAKER':
      out.push(canceled(t, 'STP', t.remaining, false));
      return true;
    case 'EXPIRE_MAKER':
      book.remove(m);
      out.push(canceled(m, 'STP', m.remaining, true));
      return false;
    case 'EXPIRE_BOTH':
      book.remove(m);
      out.push(canceled(m, 'STP', m.remaining, true));
      out.push(canceled(t, 'STP', t.remaining, false));
      return true;
    case 'DECREMENT': {
      const d = t.remaining < m.remaining ? t.remaining : m.remaining;
      if (m.remaining === d) {
        book.remove(m);
        out.push(canceled(m, 'STP', d, true));
      } else {
        level.reduce(m, d);
        out.push(decremented(m, d, true));
      }
      if (t.remaining === d) {
        t.remaining = 0n;
        out.push(canceled(t, 'STP', d, false));
        return true;
      }
      t.remaining -= d;
      out.push(decremented(t, d, false));
      return false;
    }
  }
}

/**
 * Whether an order at `price` on `side` would take: some unexpired order on the other
 * side is at that price or better. Changes nothing: expired makers are passed over.
 */
export function wouldTakeFrom(book: RestingOrders, side: Side, price: bigint, nowNs: bigint): boolean {
  const isBuy = side === 'BUY';
  let takes = false;
  (isBuy ? book.asks : book.bids).forEachBestFirst((level) => {
    if (isBuy ? level.price > price : level.price < price) return false;
    for (let m = level.head; m !== null; m = m.next) {
      if (m.expireAtNs === null || m.expireAtNs > nowNs) {
        takes = true;
        return false;
      }
    }
    return true;
  });
  return takes;
}

/** wouldTakeFrom for a post-only price modify: expires the stale makers it meets on the way, as matching would. */
export function sweepWouldTake(book: RestingOrders, isBuy: boolean, price: bigint, nowNs: bigint, out: MatchEvent[]): boolean {
  const opp = isBuy ? book.asks : book.bids;
  for (;;) {
    const level = opp.best();
    if (level === undefined || (isBuy ? level.price > price : level.price < price)) return false;
    const m = level.head!;
    if (m.expireAtNs !== null && m.expireAtNs <= nowNs) {
      book.remove(m);
      out.push(canceled(m, 'EXPIRED', m.remaining, true));
      continue;
    }
    return true;
  }
}
