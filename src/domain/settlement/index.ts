/**
 * Reservation, fee and fill-settlement arithmetic, pure: what an order holds, and what
 * each fill moves between which accounts, as plain data the engine posts to its balances.
 */
export { FEE_SLACK_E18, feePpm, maxFeePpm, type FeeSchedule } from './fees.ts';
export {
  buyReservation,
  maxQuoteDebitReservation,
  reReservation,
  reservationFor,
  sellReservation,
  type FeeAsset,
  type OrderToReserve,
  type Reservation,
  type ReservationMarket,
  type Side,
} from './reservation.ts';
export { settleFill, type CreditLeg, type DebitLeg, type FillInput, type FillParty, type FillSettlement, type LegCode, type OrderSettlement, type SettlementMarket } from './fill.ts';
