import { codes } from '../errorCatalogue.ts';
import type { ModifyOrder, PlaceOrder, PlaceRejectReason, RejectReason, RestingOrder } from './types.ts';

/** The increments a book's prices and quantities must be multiples of. */
interface Steps {
  readonly tickSize: bigint;
  readonly qtyStep: bigint;
}

const STP_MODES: ReadonlySet<string> = new Set(['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT']);

/** Why a new order must be refused before it touches the book, or null; the first failed check wins. */
export function placeRejectReason(o: PlaceOrder, duplicateId: boolean, steps: Steps): PlaceRejectReason | null {
  if (duplicateId) return codes.DUPLICATE_ORDER_ID;
  if (o.side !== 'BUY' && o.side !== 'SELL') return codes.INVALID_SIDE;
  if (o.type === 'LIMIT') {
    if (o.tif !== 'GTC' && o.tif !== 'GTD' && o.tif !== 'IOC') return codes.INVALID_ORDER_TYPE;
    if (o.postOnly === true && o.tif === 'IOC') return codes.INVALID_ORDER_TYPE;
  } else if (o.type === 'MARKET') {
    if (o.tif !== 'IOC' || o.postOnly === true) return codes.INVALID_ORDER_TYPE;
  } else {
    return codes.INVALID_ORDER_TYPE;
  }
  if (o.stpMode !== undefined && !STP_MODES.has(o.stpMode)) return codes.INVALID_STP_MODE;
  if (typeof o.qty !== 'bigint' || o.qty <= 0n) return codes.INVALID_QTY;
  if (o.qty % steps.qtyStep !== 0n) return codes.INVALID_QTY_STEP;
  if (o.type === 'LIMIT') {
    if (typeof o.price !== 'bigint' || o.price <= 0n) return codes.INVALID_PRICE;
    if (o.price % steps.tickSize !== 0n) return codes.INVALID_TICK;
  } else if (o.price !== undefined && (typeof o.price !== 'bigint' || o.price <= 0n)) {
    return codes.INVALID_PRICE;
  }
  if ((o.tif === 'GTD') !== (o.expireAtNs !== undefined)) return codes.INVALID_EXPIRY;
  if (o.maxQuoteNotional !== undefined) {
    if (o.side !== 'BUY' || o.tif !== 'IOC' || typeof o.maxQuoteNotional !== 'bigint' || o.maxQuoteNotional <= 0n) {
      return codes.INVALID_NOTIONAL_CAP;
    }
  }
  return null;
}

/** Why a modify of an existing order must be refused, or null. */
export function modifyRejectReason(change: ModifyOrder, steps: Steps): RejectReason | null {
  const { newQty, newPrice } = change;
  if (newQty === undefined && newPrice === undefined) return codes.INVALID_MODIFY;
  if (newQty !== undefined && newQty <= 0n) return codes.INVALID_QTY;
  if (newQty !== undefined && newQty % steps.qtyStep !== 0n) return codes.INVALID_QTY_STEP;
  if (newPrice !== undefined && newPrice <= 0n) return codes.INVALID_PRICE;
  if (newPrice !== undefined && newPrice % steps.tickSize !== 0n) return codes.INVALID_TICK;
  return null;
}

/**
 * What is wrong with one restored order on its own, or null. The checks against the
 * book (duplicate id, priority order, crossing) are the restorer's.
 */
export function restoredOrderProblem(o: RestingOrder, steps: Steps): string | null {
  if (o.side !== 'BUY' && o.side !== 'SELL') return 'bad side';
  if (o.tif !== 'GTC' && o.tif !== 'GTD') return 'bad tif';
  if ((o.tif === 'GTD') !== (o.expireAtNs !== undefined)) return 'expireAtNs iff GTD';
  if (!STP_MODES.has(o.stpMode)) return 'bad stpMode';
  if (o.price <= 0n || o.price % steps.tickSize !== 0n) return 'bad price';
  if (o.qty <= 0n || o.qty % steps.qtyStep !== 0n) return 'bad qty';
  return null;
}
