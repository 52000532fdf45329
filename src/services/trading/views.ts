import type { Order } from '../../generated/prisma/client.ts';
import type { AttachedRiskLegStatus } from '../../generated/prisma/enums.ts';
import type { OrderRow, RiskLegRow, TradeRow, TriggerRow } from './writeSet.ts';

type Decimalish = bigint | { toFixed(digits?: number): string };

/** A stored order or the engine's in-memory row: both render the same way. */
export type OrderLike = Omit<OrderRow, 'cumNotionalQ9' | 'inheritedNotionalQ9' | 'heldE18'> & {
  cumNotionalQ9: Decimalish;
  inheritedNotionalQ9: Decimalish;
  batchRequestId?: string | null;
  originScope?: Order['originScope'];
  originTriggerType?: Order['originTriggerType'];
  childSeq?: number;
  /** Resolved by queries/originRefs.ts; absent (rendered "") for direct orders. */
  originTriggerPublicId?: string;
  originParentOrderPublicId?: string;
};

export type TradeLike = Omit<TradeRow, 'fee' | 'transferId'> & { fee: Decimalish; referralShare?: Decimalish };

/** An attached-risk leg as stored: the submitted policy plus the state of the trigger executing it (queries/getOpenOrders.ts legsOf). */
export type RiskLegView = Omit<RiskLegRow, 'orderId' | 'status' | 'triggerId'> & {
  status: AttachedRiskLegStatus;
  armedAt: Date | null;
  terminalAt: Date | null;
  triggerPublicId?: string;
  childOrderPublicId?: string;
};

/** A trigger as the engine keeps it or as stored: both render the same way. */
export type TriggerLike = Omit<TriggerRow, 'heldE18' | 'triggerDirection' | 'triggerPrice' | 'params' | 'state'> & {
  heldE18: Decimalish;
  triggerDirection: TriggerRow['triggerDirection'] | null;
  triggerPrice: bigint | null;
  /** JSON text (the engine) or parsed JSON (the table). */
  params: unknown;
  state: unknown;
};
