import { builder } from '../../builder.ts';
import { FeeAsset, Side, StpMode } from '../trading/enums.ts';

const TriggerChildInput = builder.inputType('TriggerChildInput', {
  description: 'Exactly one of marketIoc and limit',
  fields: (t) => ({
    marketIoc: t.field({ type: builder.inputType('TriggerMarketIocInput', { fields: (f) => ({ maxSlippageTicks: f.int(), maxSlippageBps: f.int() }) }) }),
    limit: t.field({ type: builder.inputType('TriggerLimitInput', { fields: (f) => ({ price: f.string({ required: true }), postOnly: f.boolean() }) }) }),
  }),
});
const StopBlockInput = builder.inputType('TriggerStopBlockInput', {
  fields: (t) => ({ side: t.field({ type: Side, required: true }), triggerPrice: t.string({ required: true }), child: t.field({ type: TriggerChildInput, required: true }) }),
});
export const TriggerInput = builder.inputType('TriggerInput', {
  description: 'Exactly one strategy block',
  fields: (t) => ({
    symbol: t.string({ required: true }),
    qty: t.string({ required: true }),
    feeAsset: t.field({ type: FeeAsset }),
    selfTradePreventionMode: t.field({ type: StpMode }),
    clientTriggerId: t.string(),
    expireAt: t.string({ description: 'RFC 3339 with an offset, 1 second to 30 days ahead: a stop-loss, take-profit or trailing stop not fired by then ends EXPIRED' }),
    stopLoss: t.field({ type: StopBlockInput }),
    takeProfit: t.field({ type: StopBlockInput }),
    ladder: t.field({
      type: builder.inputType('LadderBlockInput', {
        fields: (f) => ({
          side: f.field({ type: Side, required: true }),
          levels: f.int({ required: true }),
          minPrice: f.string({ required: true }),
          maxPrice: f.string({ required: true }),
          distribution: f.field({ type: builder.enumType('LadderDistribution', { values: ['FLAT', 'ASCENDING', 'DESCENDING'] as const }) }),
          postOnly: f.boolean(),
        }),
      }),
    }),
    twap: t.field({
      type: builder.inputType('TwapBlockInput', {
        description: 'Exactly one of maxAdverseBps and maxAdverseTicks',
        fields: (f) => ({
          side: f.field({ type: Side, required: true }),
          durationMs: f.int({ required: true }),
          intervalMs: f.int({ required: true }),
          limitPrice: f.string(),
          maxAdverseBps: f.int(),
          maxAdverseTicks: f.string(),
        }),
      }),
    }),
    trailingStop: t.field({
      type: builder.inputType('TrailingStopBlockInput', {
        description: 'Exactly one of trailingDistanceTicks and trailingDistanceBps; at most one of maxSlippageTicks and maxSlippageBps',
        fields: (f) => ({
          side: f.field({ type: Side, required: true }),
          activationPrice: f.string(),
          trailingDistanceTicks: f.string(),
          trailingDistanceBps: f.int(),
          maxSlippageTicks: f.int(),
          maxSlippageBps: f.int(),
        }),
      }),
    }),
  }),
});

/** GraphQL input objects carry nulls for absent fields; the service takes them absent. */
export function deepDefined(o: unknown): unknown {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return o;
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, deepDefined(v)]));
}
