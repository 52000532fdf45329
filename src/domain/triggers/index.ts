export { crosses, directionOf, type Direction, type StopKind } from './stop.ts';
export { TriggerBook, type ArmedTrigger } from './triggerBook.ts';
export { INITIAL_TRAILING, TRAILING_DISTANCE_LIMITS, distanceAt, trailingDistanceOf, onTrailingPrice, worstThreshold, type TrailingParams, type TrailingState } from './trailing.ts';
export { plannedSlices, sliceCap, slicePrice, sliceQty, twapOutcome } from './twap.ts';
export { ladderLevels, type Distribution, type LadderLevel } from './ladder.ts';
