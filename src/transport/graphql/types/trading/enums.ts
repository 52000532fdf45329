import { builder } from '../../builder.ts';

export const Side = builder.enumType('Side', { values: ['BUY', 'SELL'] as const });
export const FeeAsset = builder.enumType('FeeAsset', { values: ['QUOTE', 'BASE'] as const });
export const StpMode = builder.enumType('SelfTradePreventionMode', { values: ['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT'] as const });
