/**
 * Stop-loss and take-profit conditions (spec 2.8 `stop`): pure, prices passed in (Q9).
 *
 * A stop-loss protects a position against a move the wrong way: a SELL stop fires when the
 * price falls to or below its trigger price, a BUY stop when it rises to or above it. A
 * take-profit fires on the favourable move: a SELL when the price rises to or above, a BUY
 * when it falls to or below.
 */
export type StopKind = 'STOP_LOSS' | 'TAKE_PROFIT';
export type Direction = 'ABOVE' | 'BELOW';

export function directionOf(kind: StopKind, side: 'BUY' | 'SELL'): Direction {
  const falling = (kind === 'STOP_LOSS') === (side === 'SELL');
  return falling ? 'BELOW' : 'ABOVE';
}

/** Whether `price` is at or through `triggerPrice` in `direction`. */
export function crosses(direction: Direction, triggerPrice: bigint, price: bigint): boolean {
  return direction === 'ABOVE' ? price >= triggerPrice : price <= triggerPrice;
}
