import type { presentTrigger } from '../../../../presenters/trigger.ts';

export type TriggerShape = ReturnType<typeof presentTrigger>;
export type BlockShape = { side: string; triggerPrice: string; child: { limit?: { price: string; postOnly: boolean }; marketIoc?: { maxSlippageTicks?: number; maxSlippageBps?: number } } };
export type TrailingStateShape = { active: boolean; peakPrice?: string; troughPrice?: string; currentThreshold: string };
export type TwapStateShape = { sliceIndex: number; plannedSlices: number; skippedSlices: number; startPrice: string; slicePrice: string; nextSliceAtTsNs: string };
export type TwapBlockShape = { side: string; durationMs: number; intervalMs: number; limitPrice: string; maxAdverseBps?: number; maxAdverseTicks?: string };
export type LadderLevelShape = { orderId: string; price: string; qty: string; filledQty: string; done: boolean };
export type LadderStateShape = { levelsWithFills: number; levelsFilled: number; levels: LadderLevelShape[] };
export type LadderBlockShape = { side: string; levels: number; minPrice: string; maxPrice: string; distribution: string; postOnly: boolean };
export type TrailingBlockShape = { side: string; activationPrice: string; trailingDistanceTicks?: string; trailingDistanceBps?: number; maxSlippageTicks?: number; maxSlippageBps?: number };
